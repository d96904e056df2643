package customcmd

import (
	"fmt"
	"sync"
)

// Granter allows permission rules on behalf of a source until revoked;
// internal/permission's Policy is one.
type Granter interface {
	Grant(source string, rules []string) error
	Revoke(source string)
}

// ModelSwitcher is the conversation whose model a command may change for
// its prompt.
type ModelSwitcher interface {
	Model() string
	SetModel(name string)
}

// Front applies the front matter of the custom command whose prompt is
// sent: its allowed-tools are allowed without asking, and its model
// answers, from when the prompt is sent until the next user prompt, the
// way skills grant theirs. Like every allow rule, the granted ones never
// override a deny or ask rule. A nil *Front does nothing.
type Front struct {
	grants Granter
	models ModelSwitcher

	mu      sync.Mutex
	pending *Command // Use'd, applied by the next NewTurn
	granted string   // the grant source of the running command, or ""
	restore string   // the model to go back to, or ""
}

// NewFront returns a Front granting through g and switching models
// through m; either may be nil, and that part of the front matter is then
// not applied.
func NewFront(g Granter, m ModelSwitcher) *Front {
	return &Front{grants: g, models: m}
}

// Use marks c as the command whose prompt is sent next.
func (f *Front) Use(c Command) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.pending = &c
	f.mu.Unlock()
}

// NewTurn is called as each user prompt is sent: it ends what the previous
// command applied, then applies the command Use marked, if any. The error
// names the command's rules that do not parse; the others are granted.
func (f *Front) NewTurn() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.granted != "" {
		f.grants.Revoke(f.granted)
		f.granted = ""
	}
	if f.restore != "" {
		f.models.SetModel(f.restore)
		f.restore = ""
	}
	c := f.pending
	f.pending = nil
	if c == nil {
		return nil
	}
	if c.Model != "" && f.models != nil {
		if cur := f.models.Model(); cur != c.Model {
			f.restore = cur
			f.models.SetModel(c.Model)
		}
	}
	if len(c.AllowedTools) == 0 || f.grants == nil {
		return nil
	}
	f.granted = "command " + c.Name
	if err := f.grants.Grant(f.granted, c.AllowedTools); err != nil {
		return fmt.Errorf("applying the allowed-tools of /%s: %w", c.Name, err)
	}
	return nil
}
