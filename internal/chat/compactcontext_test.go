package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// contextRecorder is a compactRecorder that also adds context after a
// compression, as the SessionStart hooks with source "compact" do.
type contextRecorder struct {
	compactRecorder
	instructions []string
	after        []string
}

func (r *contextRecorder) PreCompact(ctx context.Context, trigger, instructions string) (bool, string) {
	r.instructions = append(r.instructions, instructions)
	return r.compactRecorder.PreCompact(ctx, trigger, instructions)
}

func (r *contextRecorder) AfterCompact(_ context.Context, trigger string) string {
	r.after = append(r.after, trigger)
	return "REMEMBER THE STYLE GUIDE"
}

// /compress with instructions passes them to PreCompact and to the
// summary prompt; the context added after the compression goes out with
// the next request.
func TestCompressInstructionsAndContext(t *testing.T) {
	hist := compactHistory()
	rec := &contextRecorder{}
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast, Compact: rec}, hist)
	if _, ok := c.CompressWith(context.Background(), "focus on the parser"); !ok {
		t.Fatal("not compressed")
	}
	if strings.Join(rec.instructions, ",") != "focus on the parser" || strings.Join(rec.after, ",") != "manual" {
		t.Errorf("instructions %q, after %v", rec.instructions, rec.after)
	}
	summaryReq := p.reqs[0].Messages
	if last := summaryReq[len(summaryReq)-1].Text(); !strings.Contains(last, "focus on the parser") {
		t.Errorf("summary prompt lacks the instructions: %q", last)
	}
	drain(t, c, userText("next"))
	var sent strings.Builder
	for _, m := range p.reqs[1].Messages {
		sent.WriteString(m.Text())
	}
	if !strings.Contains(sent.String(), "REMEMBER THE STYLE GUIDE") || !strings.Contains(sent.String(), "SUMMARY") {
		t.Errorf("next request lacks the added context:\n%s", sent.String())
	}
}
