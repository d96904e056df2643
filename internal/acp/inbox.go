package acp

import (
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/inbox"
)

// A session's inbox rounds: a background task's notification, a
// schedule's firing, a teammate's message.
//
// One that is queued when the model stops during a prompt is sent after
// that round, in the same prompt turn, before its stop reason. The prompt
// does not wait for background work still running, as a person is at the
// other end: what it posts later waits like any round that arrives while
// no prompt runs.
//
// ACP gives the agent no turn of its own: a prompt turn is the client's
// session/prompt, and only within one may the agent stream a reply or ask
// for permission. So a round that arrives while no prompt runs is not
// sent on its own; it waits for the next session/prompt, where it goes
// before the prompt's text, in the same request (its announcement first
// in the turn's updates).

// roundNotice is the line that announces r: its type, its source and a
// summary.
func roundNotice(r inbox.Round) string {
	summary := r.Summary
	if summary == "" {
		summary = r.Text
		if len(summary) > 200 {
			summary = strings.ToValidUTF8(summary[:200], "") + "…"
		}
	}
	return fmt.Sprintf("[%s from %s: %s]\n", r.Type, r.Source, summary)
}
