package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// "/compress focus text" hands the text to the compression.
func TestCompressWithInstructions(t *testing.T) {
	h := newHarness(t, nil, nil)
	got := make(chan string, 1)
	h.m.cfg.Session = &session{compress: func(_ context.Context, focus string) (int, int, bool) {
		got <- focus
		return 10, 5, true
	}}
	h.typeText("/compress keep the parser details")
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	runCmds(cmd, h.msgs)
	select {
	case s := <-got:
		if s != "keep the parser details" {
			t.Errorf("instructions = %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("/compress with instructions did not compress")
	}
}
