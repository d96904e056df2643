package wirecache

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// A head is encoded again whenever anything it is made of changed, in a
// new value or in place, and only then.
func TestHeadEncodesAgainOnlyWhatChanged(t *testing.T) {
	var h Head[string]
	n := 0
	encode := func(req *llm.Request) string {
		t.Helper()
		got, err := h.Encode(req, func() (string, error) {
			n++
			b, err := json.Marshal(struct {
				M, S  string
				Max   int
				Temp  *float64
				E     llm.Effort
				Tools []llm.ToolDecl
			}{req.Model, req.System, req.MaxOutputTokens, req.Temperature, req.Effort, req.Tools})
			return string(b), err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	zero := 0.0
	req := &llm.Request{Model: "m", System: "s", MaxOutputTokens: 10, Temperature: &zero, Effort: llm.EffortLow,
		Tools: []llm.ToolDecl{{Name: "a", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	first := encode(req)
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "hi"}}})
	if got := encode(req); got != first || n != 1 {
		t.Fatalf("the same head: encoded %d times, %s", n, got)
	}
	changes := []func(){
		func() { req.Model = "m2" },
		func() { req.System = "s2" },
		func() { req.MaxOutputTokens = 11 },
		func() { minus := math.Copysign(0, -1); req.Temperature = &minus },
		func() { zero := 0.0; req.Temperature = &zero },
		func() { *req.Temperature = 0.5 },
		func() { req.Temperature = nil },
		func() { req.Effort = llm.EffortHigh },
		func() { req.Tools[0].Parameters[2] = 'T' },
		func() { req.Tools[0].Description = "d2" },
		func() { req.Tools[0].Parameters = nil },
		func() { req.Tools = append(req.Tools, llm.ToolDecl{Name: "b"}) },
		func() { req.Tools = nil },
	}
	prev := encode(req)
	for i, change := range changes {
		change()
		before := n
		got := encode(req)
		if n != before+1 || got == prev {
			t.Fatalf("change %d: encoded %d times, %s after %s", i, n-before, got, prev)
		}
		prev = got
	}
}
