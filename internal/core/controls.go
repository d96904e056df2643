package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/permission"
)

// The session's controls: what every entry layer lets the user change —
// the approval mode, the model, the reasoning effort, a summary of the
// history now. Each is written once here; the TUI, ACP and the SDK each
// reach them through a small interface of their own.

// Mode is the approval mode now (a tool such as exit_plan_mode may have
// changed it).
func (c *Session) Mode() string { return c.policy.Mode().String() }

// SetMode changes the approval mode. The policy tells its watchers, so
// the next request's system prompt and tool list follow (mode.go).
func (c *Session) SetMode(name string) error {
	m, err := permission.ParseMode(name)
	if err != nil {
		return err
	}
	return c.policy.SetMode(m)
}

// Modes lists the approval modes in the order Shift+Tab cycles them.
func (c *Session) Modes() []string {
	var out []string
	for _, m := range permission.Modes() {
		out = append(out, m.String())
	}
	return out
}

// Model is the model later requests go to.
func (c *Session) Model() string { return c.chat.Config().Model }

// SetModel switches the model of later requests. Any name goes to the
// session's provider, except one the settings give only to another
// provider, which this session cannot reach.
func (c *Session) SetModel(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("empty model name")
	}
	if other, ok := c.cfg.OtherModels[name]; ok {
		return fmt.Errorf("model %q is provider %q's, not this session's provider's: start ply with --provider %s to use it", name, other, other)
	}
	c.chat.SetModel(name)
	c.log.Info("model switched", "model", name)
	return nil
}

// Effort is the reasoning tier of later requests ("" the provider's
// default).
func (c *Session) Effort() string { return string(c.chat.Config().Effort) }

// SetEffort sets the reasoning tier of later requests.
func (c *Session) SetEffort(name string) error {
	e, err := llm.ParseEffort(name)
	if err != nil {
		return err
	}
	c.chat.SetEffort(e)
	return nil
}

// Compress summarises the older history now, following focus when it is
// not empty, and records the compacted history, which replaces what came
// before it when the session is loaded. ok is false when there was
// nothing to summarise.
func (c *Session) Compress(ctx context.Context, focus string) (before, after int, ok bool) {
	ev, ok := c.chat.CompressWith(ctx, focus)
	if ok {
		c.sess.w.AppendCompaction(c.chat.History())
	}
	return ev.TokensBefore, ev.TokensAfter, ok
}
