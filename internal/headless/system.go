package headless

import (
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/turn"
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

// systemRound prints a SystemRound message and a progress line.
func (p *printer) systemRound(next inbox.Round) {
	p.emit(SystemRound{Type: "system", Subtype: next.Type.String(), UUID: newUUID(), SessionID: p.cfg.SessionID,
		ParentToolUseID: p.parentID, Source: next.Source, Text: next.Text})
	summary := next.Summary
	if summary == "" {
		summary = abbreviate(next.Text, 200)
	}
	p.progress("← %s (%s): %s", next.Source, next.Type, summary)
}

// compacted prints a CompactBoundary message and a progress line.
func (p *printer) compacted(e turn.ChatCompressed) {
	p.emit(CompactBoundary{Type: "system", Subtype: "compact_boundary", UUID: newUUID(), SessionID: p.cfg.SessionID,
		ParentToolUseID: p.parentID, Metadata: CompactMetadata{Trigger: "auto", PreTokens: e.TokensBefore, PostTokens: e.TokensAfter}})
	p.progress("compressed the conversation: ~%d → ~%d tokens", e.TokensBefore, e.TokensAfter)
}
