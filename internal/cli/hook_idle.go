package cli

import (
	"context"

	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/tui"
)

// addIdleHook tells the Notification hooks ("idle_prompt") when the UI has
// waited for the user's input after the agent finished, as Claude Code
// does. Without such hooks nothing is timed.
func addIdleHook(t *tui.Config, c *core) {
	if !c.hooks.Has(hooks.Notification) {
		return
	}
	t.Extra.OnIdle = func(ctx context.Context) {
		c.hooks.Notify(ctx, hooks.NotifyIdle, "Waiting for input", "ply is waiting for your input")
	}
}
