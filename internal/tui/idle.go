package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// DefaultIdleDelay is how long the UI waits for the user's input after
// the agent finished before it tells the session (IdleNotifier).
const DefaultIdleDelay = 60 * time.Second

// armIdle starts the idle timer of the interaction that just finished.
// The timer is tied to that interaction: if another one starts before it
// runs out, it does nothing, so the session is told at most once per idle
// period.
func (m *model) armIdle() tea.Cmd {
	if s, ok := probe[IdleNotifier](m); !ok || !s.HasIdle() || m.busy {
		return nil
	}
	delay := m.cfg.Extra.IdleDelay
	if delay <= 0 {
		delay = DefaultIdleDelay
	}
	id := m.id
	return tea.Tick(delay, func(time.Time) tea.Msg {
		return funcMsg(func(m *model) tea.Cmd { return m.idle(id) })
	})
}

// idle tells the session, off the UI's goroutine, when the interaction id is
// still the last one and nothing runs.
func (m *model) idle(id int) tea.Cmd {
	if id != m.id || m.busy || m.compacting {
		return nil
	}
	s, _ := probe[IdleNotifier](m)
	ctx := m.base
	return func() tea.Msg {
		s.Idle(ctx)
		return nil
	}
}
