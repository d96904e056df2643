package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

type compactRecorder struct {
	block bool
	pre   []string
	post  []string
}

func (r *compactRecorder) PreCompact(_ context.Context, trigger, _ string) (bool, string) {
	r.pre = append(r.pre, trigger)
	return r.block, "not now"
}

func (r *compactRecorder) PostCompact(_ context.Context, trigger, summary string) {
	r.post = append(r.post, trigger+":"+summary)
}

func compactHistory() []llm.Message {
	long := strings.Repeat("token ", 200)
	var hist []llm.Message
	for i := 0; i < 6; i++ {
		hist = append(hist, userText("q "+long), llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "a " + long}}, FinishReason: llm.FinishStop})
	}
	return hist
}

// The compact hooks hear of a manual and an automatic compression, and
// a PreCompact refusal keeps the history and sends no summary request.
func TestCompactHooks(t *testing.T) {
	hist := compactHistory()
	rec := &compactRecorder{}
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}}}
	c := New(p, Config{Retry: fast, Compact: rec}, hist)
	if _, ok := c.Compress(context.Background()); !ok {
		t.Fatal("not compressed")
	}
	if strings.Join(rec.pre, ",") != "manual" || strings.Join(rec.post, ",") != "manual:SUMMARY" {
		t.Errorf("pre %v post %v", rec.pre, rec.post)
	}

	rec2 := &compactRecorder{block: true}
	p2 := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop()}}}}
	c2 := New(p2, Config{Retry: fast, Compact: rec2, ContextWindow: int(float64(EstimateTokens(hist)) / 0.72)}, hist)
	drain(t, c2, userText("next"))
	if strings.Join(rec2.pre, ",") != "auto" || len(rec2.post) != 0 {
		t.Errorf("pre %v post %v", rec2.pre, rec2.post)
	}
	if len(p2.reqs) != 1 || len(p2.reqs[0].Messages) != len(hist)+1 {
		t.Errorf("%d requests; the refused compression must leave the history whole", len(p2.reqs))
	}
}
