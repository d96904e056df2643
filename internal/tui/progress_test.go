package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestProgressReplacedByResult: a running !cmd and /compress say so in
// the live area; when they end, the conversation holds their result and
// no "running…" or "compressing…" line above it.
func TestProgressReplacedByResult(t *testing.T) {
	h := newHarness(t, nil, nil)
	release := make(chan struct{})
	h.m.cfg.Session = &struct {
		session
		ShellRunner
	}{session{compress: func(context.Context, string) (int, int, bool) {
		<-release
		return 9000, 1200, true
	}}, shellFunc(func(context.Context, string) (string, int, error) {
		<-release
		return "hello\n", 0, nil
	})}

	h.typeText("!echo hello")
	h.enter()
	if v := h.view(); !strings.Contains(v, "running echo hello… (esc to stop)") {
		t.Fatalf("no progress line while the command runs:\n%s", v)
	}
	release <- struct{}{}
	h.pumpUntil(isFunc)
	p := h.printed()
	if !strings.Contains(p, "> !echo hello\n  ⎿ hello") || strings.Contains(p, "running") {
		t.Fatalf("the result does not take the progress line's place:\n%s", p)
	}
	if strings.Contains(h.view(), "running") {
		t.Fatalf("the progress line stays:\n%s", h.view())
	}

	h.typeText("/compress")
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	runCmds(cmd, h.msgs)
	if v := h.view(); !strings.Contains(v, "compressing…") {
		t.Fatalf("no progress line while compressing:\n%s", v)
	}
	release <- struct{}{}
	h.pumpUntil(func(msg tea.Msg) bool { _, ok := msg.(compressedMsg); return ok })
	p = h.printed()
	if strings.Contains(p, "compressing") || !strings.Contains(p, "> /compress\n") {
		t.Fatalf("the compression's progress line was printed:\n%s", p)
	}
}
