package headless

import (
	"context"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
)

// SystemRound announces a round no user typed, before it is sent: a
// background task's notification, a schedule's firing, a teammate's
// message. Subtype is the round's type (notification, cron, teammate),
// Source names what sent it.
type SystemRound struct {
	Type            string  `json:"type"`
	Subtype         string  `json:"subtype"`
	UUID            string  `json:"uuid"`
	SessionID       string  `json:"session_id"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	Source          string  `json:"source"`
	Text            string  `json:"text"`
}

// fromInbox takes the next queued round, waiting for one while the inbox
// holds background work (bounded by ctx: the wall-time cap, Ctrl+C), and
// announces and records it.
func (r *run) fromInbox(ctx context.Context) (inbox.Round, bool) {
	if r.cfg.Inbox == nil {
		return inbox.Round{}, false
	}
	if r.cfg.Inbox.Held() > 0 && r.cfg.Inbox.Len() == 0 {
		r.out.progress("waiting for %d background task(s) to finish", r.cfg.Inbox.Held())
	}
	next, ok := r.cfg.Inbox.Next(ctx)
	if !ok {
		return next, false
	}
	r.inboxDone = next.Done
	r.out.systemRound(next)
	if r.cfg.OnRound != nil {
		r.cfg.OnRound(next)
	}
	return next, true
}

func (p *printer) systemRound(next inbox.Round) {
	p.emit(SystemRound{Type: "system", Subtype: next.Type.String(), UUID: newUUID(), SessionID: p.cfg.SessionID,
		ParentToolUseID: p.parentID, Source: next.Source, Text: next.Text})
	summary := next.Summary
	if summary == "" {
		summary = abbreviate(next.Text, 200)
	}
	p.progress("← %s (%s): %s", next.Source, next.Type, summary)
}

// endInboxRound tells the round taken last that its interaction ended.
func (r *run) endInboxRound() {
	if done := r.inboxDone; done != nil {
		r.inboxDone = nil
		done()
	}
}

// teammateParts takes the teammates' messages that arrived while tools
// ran: they go out with the tool results, after them, so a message
// reaches a loop at its next round boundary without breaking a call's
// pairing with its response. Other rounds wait for the interaction's end.
func (r *run) teammateParts() []llm.Part {
	if r.cfg.Inbox == nil {
		return nil
	}
	var parts []llm.Part
	for _, m := range r.cfg.Inbox.TakeType(client.Teammate) {
		r.out.systemRound(m)
		if r.cfg.OnRound != nil {
			r.cfg.OnRound(m)
		}
		parts = append(parts, llm.Part{Text: m.Text})
		if m.Done != nil {
			m.Done()
		}
	}
	return parts
}
