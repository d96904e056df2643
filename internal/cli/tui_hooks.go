package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/customcmd"

	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/tui"
)

// addHookControls gives the interactive UI what the hooks need of it: the
// Notification hooks hear ("idle_prompt") when the UI has waited for the
// user's input after the agent finished, as Claude Code does. Without
// Notification hooks nothing is timed. ("/compress focus text" passes the
// text to the PreCompact hooks through the session's Compress.)
func addHookControls(t *tui.Config, c *core.Session) {
	if !c.Hooks().Has(hooks.Notification) {
		return
	}
	t.Extra.OnIdle = func(ctx context.Context) {
		c.Hooks().Notify(ctx, hooks.NotifyIdle, "Waiting for input", "ply is waiting for your input")
	}
}

// customFront applies the front matter of custom commands for the TUI,
// telling the user of rules that do not parse.
type customFront struct {
	f    *customcmd.Front
	warn io.Writer
}

// addCustomFront makes a custom command's allowed-tools and model hold
// for its prompt: UseCustom marks it, onUserQuery applies it.
func addCustomFront(t *tui.Config, c *core.Session, warn io.Writer) {
	front := &customFront{f: customcmd.NewFront(c.Policy(), chatModels{c.Chat()}), warn: warn}
	c.OnNewTurn(front.newTurn)
	t.Extra.UseCustom = front.f.Use
}

func (cf *customFront) newTurn() {
	if cf == nil {
		return
	}
	if err := cf.f.NewTurn(); err != nil {
		fmt.Fprintf(cf.warn, "ply: warning: %v\n", err)
	}
}

// chatModels is the chat as customcmd.Front switches its model.
type chatModels struct{ ch *chat.Chat }

func (m chatModels) Model() string        { return m.ch.Config().Model }
func (m chatModels) SetModel(name string) { m.ch.SetModel(name) }
