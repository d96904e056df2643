package openai

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// The request's effort is sent as reasoning_effort; the tiers above high
// ask for high; no effort sends nothing.
func TestRequestEffort(t *testing.T) {
	s := newServer(t, reply{Body: stopBody}, reply{Body: stopBody}, reply{Body: stopBody})
	c := s.client(Config{Model: "m1"})
	for i, e := range []llm.Effort{llm.EffortLow, llm.EffortMax, ""} {
		req := &llm.Request{Effort: e, Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "q"}}}}}
		if r := run(t, c, req); r.Err != nil {
			t.Fatal(r.Err)
		}
		got, ok := s.Body(t, i)["reasoning_effort"]
		want := map[llm.Effort]string{llm.EffortLow: "low", llm.EffortMax: "high"}[e]
		if want == "" && ok {
			t.Errorf("effort %q sent reasoning_effort %v", e, got)
		} else if want != "" && got != want {
			t.Errorf("effort %q: reasoning_effort = %v, want %s", e, got, want)
		}
	}
}
