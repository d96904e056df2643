package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
)

// Background work: rounds no user typed come from the
// session's inbox and start when the UI is idle, or when the running
// interaction ends; approvals of background subagents wait their turn
// beside the main loop's.

// inboxMsg says the inbox may hold a round.
type inboxMsg struct{}

// watchInbox forwards the inbox's wake-ups to the program until done.
func (u *UI) watchInbox(done <-chan struct{}) {
	in := u.cfg.Inbox
	if in == nil {
		return
	}
	if in.Len() > 0 {
		u.send(inboxMsg{})
	}
	for {
		select {
		case <-in.Ready():
			u.send(inboxMsg{})
		case <-done:
			return
		}
	}
}

// fromInbox starts the next queued round when nothing else runs; the
// loop announces it (announce) and records it.
func (m *model) fromInbox() tea.Cmd {
	if m.cfg.Inbox == nil || m.busy || m.compacting || m.picker != nil {
		return nil
	}
	r, ok := m.cfg.Inbox.Take()
	if !ok {
		return nil
	}
	return m.startLoop(loop.Input{Rounds: []inbox.Round{r}, Type: r.Type})
}

// announce shows where a round no user typed came from.
func (m *model) announce(r inbox.Round) tea.Cmd {
	summary := r.Summary
	if summary == "" {
		summary = abbreviate(r.Text, 200)
	}
	return m.commit(m.st.dim.Render(sanitize("◆ " + r.Source + " (" + r.Type.String() + "): " + summary)))
}

// askerKey carries who asks for an approval, when not the main loop.
type askerKey struct{}

// WithAsker labels the approvals asked under ctx with who asks (a
// background subagent's name): the dialog shows it, and such approvals
// queue beside the main loop's instead of replacing them.
func WithAsker(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, askerKey{}, label)
}

func askerOf(ctx context.Context) string {
	s, _ := ctx.Value(askerKey{}).(string)
	return s
}

// openApproval shows msg's dialog. One asker asks one call at a time, so a
// second request from the same asker means it gave up on the first; a
// request from another asker waits until the open dialog is answered.
func (m *model) openApproval(msg approvalMsg) {
	if m.approval != nil {
		if m.approval.from != msg.from {
			m.waiting = append(m.waiting, msg)
			return
		}
		m.approval.reply <- scheduler.Decision{Outcome: scheduler.OutcomeCancel}
	}
	m.approval = m.newApproval(msg)
	m.approval.from = msg.from
	if msg.call.id != "" && msg.from == "" { // a call of the main loop's, not a question (the per-turn cap)
		m.updateCard(msg.call)
	}
}

// nextApproval opens the oldest waiting dialog, once none is open.
func (m *model) nextApproval() {
	if m.approval != nil || len(m.waiting) == 0 {
		return
	}
	next := m.waiting[0]
	m.waiting = m.waiting[1:]
	m.openApproval(next)
}

// cancelMainApprovals answers the main loop's dialogs, open or waiting,
// with cancel: its interaction ended. Background subagents' stay.
func (m *model) cancelMainApprovals() {
	kept := m.waiting[:0]
	for _, w := range m.waiting {
		if w.from == "" {
			w.reply <- scheduler.Decision{Outcome: scheduler.OutcomeCancel}
			continue
		}
		kept = append(kept, w)
	}
	m.waiting = kept
	if m.approval != nil && m.approval.from == "" {
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeCancel})
	}
}
