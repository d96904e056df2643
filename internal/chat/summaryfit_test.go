package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// A summary of a history that holds an answer larger than the window
// sends a request the window holds: the largest texts are cut to their
// ends, and what still does not fit is left out from the oldest on.
func TestSummaryRequestFitsTheWindow(t *testing.T) {
	const window = 16000
	huge := strings.Repeat("a long answer line\n", 20000) // about 95k tokens
	hist := []llm.Message{
		userText("write it all out"),
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: huge}}, FinishReason: llm.FinishStop},
		userText("now something else " + strings.Repeat("x", 2000)),
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: "ok"}}, FinishReason: llm.FinishStop},
		userText("and more"),
	}
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}}}
	c := New(p, Config{Retry: fast, ContextWindow: window}, hist)
	if _, ok := c.Compress(context.Background()); !ok {
		t.Fatal("not compressed")
	}
	if len(p.reqs) != 1 {
		t.Fatalf("%d requests", len(p.reqs))
	}
	req := p.reqs[0]
	if est := estimateRequest(req); est > window {
		t.Errorf("the summary request is about %d tokens, over the %d-token window", est, window)
	}
	all := ""
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			all += p.Text
		}
	}
	if !strings.Contains(all, "a long answer line") || !strings.Contains(all, "left out of this request") {
		t.Errorf("the summary request lost the answer's ends or the note: %.300s", all)
	}
	if h := c.History(); len(h) == 0 || !strings.Contains(h[0].Parts[0].Text, "SUMMARY") {
		t.Errorf("history after the summary: %+v", h)
	}
}

// Entries too many to fit, each too small to cut, are left out from the
// oldest on, up to a prompt.
func TestSummaryRequestLeavesOutTheOldest(t *testing.T) {
	const window = 16000
	var hist []llm.Message
	for i := range 40 {
		id := string(rune('a' + i%26))
		hist = append(hist, userText("prompt "+strings.Repeat("y", 2000)),
			llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Call: &llm.FunctionCall{ID: id, Name: "read_file", Args: "{}"}}}},
			llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: id, Name: "read_file", Output: strings.Repeat("z", 3000)}}}},
			llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "done"}}, FinishReason: llm.FinishStop})
	}
	hist = append(hist, userText("last"))
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}}}
	c := New(p, Config{Retry: fast, ContextWindow: window}, hist)
	if _, ok := c.Compress(context.Background()); !ok {
		t.Fatal("not compressed")
	}
	req := p.reqs[0]
	if est := estimateRequest(req); est > window {
		t.Errorf("the summary request is about %d tokens, over the %d-token window", est, window)
	}
	if first := req.Messages[0]; first.Role != llm.RoleUser || !strings.HasPrefix(first.Parts[0].Text, "prompt") {
		t.Errorf("the request starts with %+v", first)
	}
}
