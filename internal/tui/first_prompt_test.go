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

// FirstPrompt (-i) is sent at start as if typed: shown as the user's
// prompt, sent as a user query.
func TestFirstPromptIsSentAsTyped(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var types []client.SendType
	rounds := roundsFunc(func(ctx context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range parts {
			got = append(got, p.Text)
		}
		types = append(types, typ)
		return []turn.Event{turn.Content{Text: "ok"}, turn.Finished{Reason: llm.FinishStop}}
	})
	h := &harness{t: t, msgs: make(chan tea.Msg, 256)}
	cfg := Config{Model: "test-model", PermissionMode: "default", NoColor: true, Width: 80, Height: 24,
		FirstPrompt: "explain this repo"}
	h.m = newModel(cfg, &driver{rounds: rounds, cfg: cfg, send: func(m tea.Msg) { h.msgs <- m }})
	h.m.keep = true
	h.m.Init()
	t.Cleanup(func() {
		h.m.cancelRunning()
		h.m.drv.wait()
	})
	h.pumpUntil(isDone)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "|") != "explain this repo" || len(types) != 1 || types[0] != client.UserQuery {
		t.Fatalf("sent %q as %v, want the first prompt as a user query", got, types)
	}
	if p := h.printed(); !strings.Contains(p, "explain this repo") || strings.Contains(p, "interrupted turn") {
		t.Fatalf("the first prompt should show as the user's own:\n%s", p)
	}
}
