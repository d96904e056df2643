package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// runCmds runs a command and the commands of any batch it returns, each
// on its own goroutine (as the program does), and sends what they return.
func runCmds(cmd tea.Cmd, out chan<- tea.Msg) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				runCmds(c, out)
			}
			return
		}
		out <- msg
	}()
}

// TestCompressStops checks that Esc stops a running /compress, as its
// line says, and that the UI says the conversation was left as it was.
func TestCompressStops(t *testing.T) {
	h := newHarness(t, nil, nil)
	started := make(chan struct{})
	h.m.cfg.Session = &session{compress: func(ctx context.Context, _ string) (int, int, bool) {
		close(started)
		<-ctx.Done()
		return 0, 0, false
	}}
	h.typeText("/compress")
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	msgs := make(chan tea.Msg, 16)
	runCmds(cmd, msgs)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("/compress did not start")
	}
	if !h.m.compacting || !strings.Contains(h.view(), "compressing… (esc to stop)") {
		t.Fatalf("compacting=%v, view:\n%s", h.m.compacting, h.view())
	}
	h.press(tea.KeyEscape, 0)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case msg := <-msgs:
			c, ok := msg.(compressedMsg)
			if !ok {
				continue
			}
			if !c.cancelled {
				t.Fatalf("compression ended without being cancelled: %+v", c)
			}
			h.update(c)
			if h.m.compacting || h.m.cancelling || !strings.Contains(h.printed(), "compression stopped") {
				t.Fatalf("after the stop: compacting=%v cancelling=%v\n%s", h.m.compacting, h.m.cancelling, h.printed())
			}
			return
		case <-deadline:
			t.Fatal("Esc did not stop /compress")
		}
	}
}
