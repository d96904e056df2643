package gemini

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// The request's effort is thinkingConfig.thinkingBudget, within what
// every thinking model takes and below maxOutputTokens.
func TestRequestEffort(t *testing.T) {
	s := newServer(t, reply{Body: stopBody}, reply{Body: stopBody}, reply{Body: stopBody})
	for i, c := range []struct {
		e      llm.Effort
		maxOut int
		want   float64
	}{
		{llm.EffortLow, 0, 2048},
		{llm.EffortMax, 0, 24576},
		{llm.EffortHigh, 8000, 4000},
	} {
		req := simpleRequest()
		req.Effort, req.MaxOutputTokens = c.e, c.maxOut
		if r := run(t, s.client(Config{IncludeThoughts: true}), req); r.Err != nil {
			t.Fatal(r.Err)
		}
		gc, _ := s.Body(t, i)["generationConfig"].(map[string]any)
		tc, _ := gc["thinkingConfig"].(map[string]any)
		if tc["thinkingBudget"] != c.want || tc["includeThoughts"] != true {
			t.Errorf("effort %q, maxOutputTokens %d: thinkingConfig = %v, want budget %v", c.e, c.maxOut, tc, c.want)
		}
	}
}
