package core

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/settings"
)

// The permission rules as the entry layers show and edit them: the
// approval dialog's "allow always" and /permissions.

// AlwaysScope returns the rules that answering "allow always" to call
// adds, and a phrase naming the calls they cover; no rules means nothing
// can be remembered for it.
func (c *Session) AlwaysScope(call *scheduler.Call) (rules []string, desc string) {
	return c.policy.AlwaysScope(call)
}

// SettingsFile is the path of the project's ("project") or the user's
// ("user") settings file, "" when there is none to save to.
func (c *Session) SettingsFile(where string) string {
	switch where {
	case "project":
		return filepath.Join(c.cfg.Workspace, ".ply", "settings.json")
	case "user":
		if c.cfg.Home != "" {
			return filepath.Join(c.cfg.Home, "settings.json")
		}
	}
	return ""
}

// SaveAllowRules appends rules to permissions.allow of the settings file
// where names ("project" or "user"); it does not allow them for this
// session (an "allow always" answer does that).
func (c *Session) SaveAllowRules(where string, rules []string) error {
	path := c.SettingsFile(where)
	if path == "" {
		return fmt.Errorf("there is no %s settings file to save to", where)
	}
	if err := permission.SaveAllowRules(path, rules); err != nil {
		return err
	}
	c.log.Info("allow rules saved", "rules", rules, "file", path)
	return nil
}

// Rules lists the permission rules in force, in the order they are
// consulted.
func (c *Session) Rules() []info.Rule {
	var out []info.Rule
	for _, r := range c.policy.Rules() {
		out = append(out, info.Rule{List: r.List, Rule: r.Rule, Source: r.Source})
	}
	return out
}

// EditRule adds (add true) an allow rule for the session, saving it first
// to the settings file where names when it is "project" or "user", or
// removes one of the session's allow rules.
func (c *Session) EditRule(add bool, list, rule, where string) error {
	if !add {
		return c.policy.RemoveSessionAllow(rule)
	}
	if list != "allow" {
		return fmt.Errorf("only allow rules are added here: put %s rules in permissions.%s of settings.json", list, list)
	}
	if _, err := permission.ParseRule(rule); err != nil {
		return err
	}
	if where != "session" {
		if err := c.SaveAllowRules(where, []string{rule}); err != nil {
			return err
		}
	}
	return c.policy.AddSessionAllow(rule)
}

// SaveTheme keeps the interactive UI's theme in the user's settings.
func (c *Session) SaveTheme(name string) error {
	path := c.SettingsFile("user")
	if path == "" {
		return errors.New("there is no user settings file to save to (no ply home)")
	}
	return settings.SaveTheme(path, name)
}
