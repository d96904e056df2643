package core

import (
	"context"

	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/ide"
	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
)

// AttachIDE gives the session the editor connection its entry layer
// offers (the TUI); without one, /ide says it is not available here.
// It is set before the first round and not changed after.
func (c *Session) AttachIDE(cl *ide.Client) {
	c.ide = cl
	c.closers = append(c.closers, cl.Disconnect)
}

// ideContext adds what changed in the editor since the model was last
// told, after the user's prompt: a user query is the one round it goes
// with, so that it never comes between a call and its result.
func (c *Session) ideContext(parts []llm.Part) []llm.Part {
	if s := c.ide.TakeContext(); s != "" {
		return append(parts[:len(parts):len(parts)], llm.Part{Text: s})
	}
	return parts
}

// Approver is a, the entry layer's way of asking the user, with what
// every entry's approvals go through first: the PermissionRequest hooks,
// then, while an editor is connected, its diff view beside a for the
// calls that write a file.
func (c *Session) Approver(a scheduler.Approver) scheduler.Approver {
	return hooks.Approver(c.hooks, c.ide.Approver(a))
}

// IDEStatus is the connection to the editor, for /ide and the footer.
func (c *Session) IDEStatus() info.IDE {
	if c.ide == nil {
		return info.IDE{Detail: `IDE integration is not on in this session: it runs in the interactive UI, unless the settings say "ide": {"enabled": false}`}
	}
	st := c.ide.Status()
	out := info.IDE{Available: true, Connected: st.State == ide.Connected, Connecting: st.State == ide.Connecting,
		Name: st.IDE, Detail: st.Detail, Diffing: st.Diffing, Found: st.Found}
	if ctx, ok := c.ide.Latest(); ok {
		out.ActiveFile, out.Cursor = ctx.Active()
		out.OpenFiles = len(ctx.Files)
	}
	return out
}

// SetIDE connects to the editor (on) or disconnects from it, for this
// session, and returns the new status with the discovery files passed
// over, which are also logged.
func (c *Session) SetIDE(ctx context.Context, on bool) info.IDE {
	if c.ide == nil {
		return c.IDEStatus()
	}
	if !on {
		c.ide.Disconnect()
		return c.IDEStatus()
	}
	_, notices := c.ide.Connect(ctx)
	for _, n := range notices {
		c.log.Warn("ide: " + n)
	}
	st := c.IDEStatus()
	st.Notices = notices
	return st
}

// IDEConnected reports whether the editor is connected, cheaply, for the
// footer drawn with every frame.
func (c *Session) IDEConnected() bool { return c.ide.Status().State == ide.Connected }
