package tui

import (
	"strings"

	"github.com/plyhq/ply/internal/llm"
)

// typedText is the text of a user entry without what ply added to it
// (system reminders: the editor's context, the date).
func typedText(msg *llm.Message) string {
	var b strings.Builder
	for _, p := range msg.Parts {
		if p.Thought || p.Call != nil || p.Response != nil || strings.HasPrefix(strings.TrimSpace(p.Text), "<system-reminder>") {
			continue
		}
		b.WriteString(p.Text)
	}
	return b.String()
}
