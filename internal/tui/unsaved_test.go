package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// A session that cannot be saved ends the interaction with an error line
// before the reply's calls run, and what was typed meanwhile stays in the
// input box instead of being sent. The next prompt is not sent at all and
// goes back to the input box too.
func TestUnsavedSessionKeepsTypedInput(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	release := make(chan struct{})
	rounds := roundsFunc(func(ctx context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		sent = append(sent, parts[0].Text)
		mu.Unlock()
		<-release
		return []turn.Event{&turn.ToolCallRequest{CallID: "c1", Name: "write_file", Args: `{}`}, turn.Finished{Reason: llm.FinishToolCalls}}
	})
	ran := false
	tools := toolsFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
		ran = true
		return nil, nil
	})
	h := newHarness(t, rounds, tools)
	h.m.drv.cfg.Recorder = &record{fail: errors.New("session: write s.jsonl: no space left on device")}
	h.typeText("first")
	h.press(tea.KeyEnter, 0)
	h.typeText("typed meanwhile")
	h.press(tea.KeyEnter, 0)
	close(release)
	h.pumpUntil(isDone)
	if ran || h.m.busy {
		t.Fatalf("tools ran %v, busy %v: the interaction should end before the calls", ran, h.m.busy)
	}
	if p := flat(h.printed()); !strings.Contains(p, "✗ the session could not be saved") || !strings.Contains(p, "no space left on device") {
		t.Fatalf("no error line:\n%s", p)
	}
	if got := h.m.input.Value(); got != "typed meanwhile" {
		t.Fatalf("input box holds %q, want the type-ahead", got)
	}
	h.m.input.SetValue("")
	h.typeText("second")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	if got := h.m.input.Value(); got != "second" {
		t.Fatalf("input box holds %q, want the prompt that could not be sent", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(sent, "|") != "first" {
		t.Fatalf("sent %q, want the first prompt only", sent)
	}
}
