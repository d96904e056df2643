package cli

import (
	"context"

	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/tui"
)

// addHookControls gives the interactive UI what the hooks need of it:
// "/compress focus text" passes the text to the PreCompact hooks and the
// summary, and the Notification hooks hear ("idle_prompt") when the UI
// has waited for the user's input after the agent finished, as Claude
// Code does. Without Notification hooks nothing is timed.
func addHookControls(t *tui.Config, c *core) {
	ch, sess := c.chat, c.sess
	t.Extra.CompressWith = func(ctx context.Context, instructions string) (int, int, bool) {
		ev, ok := ch.CompressWith(ctx, instructions)
		if ok {
			sess.w.AppendCompaction(ch.History())
		}
		return ev.TokensBefore, ev.TokensAfter, ok
	}
	if !c.hooks.Has(hooks.Notification) {
		return
	}
	t.Extra.OnIdle = func(ctx context.Context) {
		c.hooks.Notify(ctx, hooks.NotifyIdle, "Waiting for input", "ply is waiting for your input")
	}
}
