package chat

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// The configured effort goes with every request; SetEffort changes it for
// later ones.
func TestEffortReachesRequests(t *testing.T) {
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("a"), stop()}}, {chunks: []llm.Chunk{text("b"), stop()}}}}
	c := New(p, Config{Model: "m", Effort: llm.EffortLow, Retry: fast}, nil)
	drain(t, c, userText("one"))
	c.SetEffort(llm.EffortHigh)
	if got := c.Config().Effort; got != llm.EffortHigh {
		t.Errorf("Config().Effort = %q after SetEffort", got)
	}
	drain(t, c, userText("two"))
	if len(p.reqs) != 2 || p.reqs[0].Effort != llm.EffortLow || p.reqs[1].Effort != llm.EffortHigh {
		t.Errorf("request efforts: %q, %q", p.reqs[0].Effort, p.reqs[len(p.reqs)-1].Effort)
	}
}
