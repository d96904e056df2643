package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// TestSendNowSteersAfterBatch: a message typed while a tool runs is
// queued with a hint saying when it goes; Ctrl+S hands it to the running
// interaction, which sends it with the batch's results, in the same turn,
// and shows it as the user's message at that point.
func TestSendNowSteersAfterBatch(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	release := make(chan struct{})
	rounds := roundsFunc(func(ctx context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		defer mu.Unlock()
		if typ == client.ToolResult {
			var texts []string
			for _, p := range parts {
				if p.Response != nil {
					texts = append(texts, "result:"+p.Response.Output)
				} else {
					texts = append(texts, p.Text)
				}
			}
			sent = append(sent, strings.Join(texts, "+"))
			return []turn.Event{turn.Content{Text: "switching to tabs"}, turn.Finished{Reason: llm.FinishStop}}
		}
		sent = append(sent, parts[0].Text)
		return []turn.Event{&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{}`}, turn.Finished{Reason: llm.FinishToolCalls}}
	})
	tools := toolsFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
		<-release
		return []llm.FunctionResponse{{ID: calls[0].CallID, Name: calls[0].Name, Output: "file body"}}, nil
	})
	h := newHarness(t, rounds, tools)
	h.typeText("format it")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(func(msg tea.Msg) bool { e, ok := msg.(eventMsg); _, fin := e.ev.(turn.Finished); return ok && fin })
	h.typeText("use tabs")
	h.press(tea.KeyEnter, 0)
	if v := h.view(); !strings.Contains(v, "1 queued: sent when the turn ends") || !strings.Contains(v, "ctrl+s") {
		t.Fatalf("the queue hint does not say when the message goes:\n%s", v)
	}
	h.press('s', tea.ModCtrl)
	if len(h.m.queued) != 0 || !strings.Contains(h.view(), "1 to send after the running tools") {
		t.Fatalf("send now did not take the message: %v\n%s", h.m.queued, h.view())
	}
	close(release)
	h.pumpUntil(isDone)
	mu.Lock()
	got := strings.Join(sent, "|")
	mu.Unlock()
	if !strings.HasPrefix(got, "format it|result:file body+") || !strings.HasSuffix(got, "+use tabs") {
		t.Fatalf("rounds sent %q; want the message after the tool's result in the same turn", got)
	}
	if h.m.busy {
		t.Fatal("the steered message was also sent as a new prompt")
	}
	p := h.printed()
	if i, j := strings.Index(p, "> use tabs"), strings.Index(p, "switching to tabs"); i < 0 || j < i {
		t.Fatalf("the steered message is not shown before the reply to it:\n%s", p)
	}
}

// TestSendNowNotTakenGoesBack: a message handed over with Ctrl+S that the
// loop did not take before a cancellation is back in the editor.
func TestSendNowNotTakenGoesBack(t *testing.T) {
	rounds := roundsFunc(func(ctx context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		return []turn.Event{&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{}`}, turn.Finished{Reason: llm.FinishToolCalls}}
	})
	tools := toolsFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	h := newHarness(t, rounds, tools)
	h.typeText("go")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(func(msg tea.Msg) bool { e, ok := msg.(eventMsg); _, fin := e.ev.(turn.Finished); return ok && fin })
	h.typeText("wait, stop")
	h.press(tea.KeyEnter, 0)
	h.press('s', tea.ModCtrl)
	h.press(tea.KeyEscape, 0)
	h.pumpUntil(isDone)
	if got := h.m.input.Value(); got != "wait, stop" {
		t.Fatalf("editor holds %q; the message handed over was lost", got)
	}
}
