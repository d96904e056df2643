package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
)

// withdrawMsg takes back the question whose answer goes to reply: its
// asker stopped waiting (the editor's diff view answered first, the
// interaction ended). Its dialog closes unanswered, or it leaves the
// queue; the next waiting question opens.
func withdrawMsg(reply chan scheduler.Decision) funcMsg {
	return func(m *model) tea.Cmd {
		kept := m.waiting[:0]
		for _, w := range m.waiting {
			if w.reply != reply {
				kept = append(kept, w)
			}
		}
		m.waiting = kept
		if m.approval != nil && m.approval.reply == reply {
			m.approval = nil
			m.nextApproval()
		}
		return nil
	}
}
