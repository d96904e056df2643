package tui

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestIdleNotification checks that the UI says once that it has waited
// for the user's input for the idle delay after the agent finished, and
// not when a new interaction began meanwhile.
func TestIdleNotification(t *testing.T) {
	h := newHarness(t, nil, nil)
	var fired atomic.Int32
	h.m.cfg.Extra.IdleDelay = 20 * time.Millisecond
	h.m.cfg.Session = struct {
		bare
		IdleNotifier
	}{bare{}, idleFunc(func(context.Context) { fired.Add(1) })}

	// The agent finishes; the user types nothing.
	h.m.busy, h.m.id = true, 1
	runCmds(h.m.finish(doneMsg{id: 1}), h.msgs)
	deadline := time.After(5 * time.Second)
	for fired.Load() == 0 {
		select {
		case msg := <-h.msgs:
			_, cmd := h.m.Update(msg)
			if _, ok := msg.(funcMsg); ok {
				runCmds(cmd, h.msgs)
			}
		case <-deadline:
			t.Fatal("no idle notification")
		}
	}
	// Once per idle period: nothing more arrives.
	drain(h, 100*time.Millisecond)
	if n := fired.Load(); n != 1 {
		t.Errorf("fired %d times, want once", n)
	}

	// A new interaction starts before the delay: the old timer is stale.
	h.m.busy, h.m.id = true, 2
	runCmds(h.m.finish(doneMsg{id: 2}), h.msgs)
	h.m.busy, h.m.id = true, 3 // the user sent another prompt
	drain(h, 100*time.Millisecond)
	if n := fired.Load(); n != 1 {
		t.Errorf("fired %d times after the user went on, want 1", n)
	}
}

// drain feeds messages into Update for d, running what funcMsgs return.
func drain(h *harness, d time.Duration) {
	end := time.After(d)
	for {
		select {
		case msg := <-h.msgs:
			var cmd tea.Cmd
			_, cmd = h.m.Update(msg)
			if _, ok := msg.(funcMsg); ok {
				runCmds(cmd, h.msgs)
			}
		case <-end:
			return
		}
	}
}
