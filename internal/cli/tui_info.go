package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tui"
)

// addTUIInfo wires what /diff, /context, /permissions, /mcp, /agents and
// /model list read.
func addTUIInfo(t *tui.Config, cfg *config, c *core.Session, log *slog.Logger) {
	t.Extra.Diff = func(ctx context.Context) ([]tui.FileChange, error) { return sessionDiff(ctx, c) }
	t.Extra.Context = func() tui.ContextUse {
		cc := c.Chat().Config()
		u := tui.ContextUse{Window: cc.ContextWindow, System: len(cc.System) / 4, History: chat.EstimateTokens(c.Chat().History())}
		for _, d := range cc.Tools {
			u.Tools += (len(d.Name) + len(d.Description) + len(d.Parameters)) / 4
		}
		u.Total = u.System + u.Tools + u.History
		return u
	}
	addPermissionRules(t, c.Policy(), log)
	t.Extra.MCP = func() []tui.MCPInfo {
		var out []tui.MCPInfo
		names := c.Registry().Names()
		for _, s := range c.MCPServers() {
			info := tui.MCPInfo{Name: s.Name, Status: s.Status}
			prefix := "mcp__" + s.Name + "__"
			for _, n := range names {
				if rest, ok := strings.CutPrefix(n, prefix); ok {
					info.Tools = append(info.Tools, rest)
				}
			}
			out = append(out, info)
		}
		return out
	}
	t.Extra.Agents = func() []tui.AgentInfo {
		tl, ok := c.Registry().Lookup(agent.Name)
		if !ok {
			return nil
		}
		var out []tui.AgentInfo
		for _, d := range tl.(*agent.Tool).Definitions() {
			src := "built in"
			if d.Path != "" {
				src = d.Path
			}
			out = append(out, tui.AgentInfo{Name: d.Name, Description: d.Description, Source: src})
		}
		return out
	}
	t.Extra.Theme = cfg.settings.UI.Theme
	if cfg.home != "" {
		t.Extra.SaveTheme = func(name string) error { return settings.SaveTheme(filepath.Join(cfg.home, "settings.json"), name) }
	}
	t.Extra.Models = func() []string {
		var out []string
		for _, m := range availableModels(cfg, c.Chat().Config().Model) {
			out = append(out, m.ID)
		}
		return out
	}
}

// addPermissionRules gives /permissions the policy's rules, and adding
// (to the session or a settings file) and removing allow rules.
func addPermissionRules(t *tui.Config, p *permission.Policy, log *slog.Logger) {
	t.Extra.Rules = func() []tui.RuleInfo {
		var out []tui.RuleInfo
		for _, r := range p.Rules() {
			out = append(out, tui.RuleInfo{List: r.List, Rule: r.Rule, Source: r.Source})
		}
		return out
	}
	t.Extra.EditRule = func(add bool, list, rule, where string) error {
		if !add {
			return p.RemoveSessionAllow(rule)
		}
		if list != "allow" {
			return fmt.Errorf("only allow rules are added here: put %s rules in permissions.%s of settings.json", list, list)
		}
		if _, err := permission.ParseRule(rule); err != nil {
			return err
		}
		path := map[string]string{"project": t.ProjectSettings, "user": t.UserSettings}[where]
		if where != "session" {
			if path == "" {
				return fmt.Errorf("there is no %s settings file to save to", where)
			}
			if err := permission.SaveAllowRules(path, []string{rule}); err != nil {
				return err
			}
			log.Info("allow rule saved", "rule", rule, "file", path)
		}
		return p.AddSessionAllow(rule)
	}
}

// sessionDiff compares the workspace now with the session's first
// checkpoint (taken before its first prompt): what the session changed,
// whether by the model's tools or by hand meanwhile.
func sessionDiff(ctx context.Context, c *core.Session) ([]tui.FileChange, error) {
	store := c.CheckpointStore()
	if store == nil {
		return nil, errors.New("checkpoints are off (settings: checkpointing), so there is nothing to compare with")
	}
	if err := c.Transcript().Sync(); err != nil {
		return nil, err
	}
	pl, err := session.Prompts(c.Transcript().Path())
	if err != nil {
		return nil, err
	}
	first := ""
	for _, p := range pl.Prompts {
		if p.Checkpoint != "" {
			first = p.Checkpoint
			break
		}
	}
	if first == "" {
		return nil, errors.New("no checkpoint yet: the first is taken when you send a prompt")
	}
	base, err := store.Load(first)
	if err != nil {
		return nil, fmt.Errorf("loading the session's first checkpoint: %w", err)
	}
	res, err := store.Checkpoint(ctx, base.Roots)
	if err != nil {
		return nil, fmt.Errorf("recording the workspace now: %w", err)
	}
	now, err := store.Load(res.ID)
	if err != nil {
		return nil, err
	}
	old, cur := entriesByPath(base), entriesByPath(now)
	var out []tui.FileChange
	for _, ch := range checkpoint.Diff(base, now) {
		fc := tui.FileChange{Op: byte(ch.Op), Path: ch.Rel}
		if len(base.Roots) > 1 {
			fc.Path = ch.Path
		}
		var oldOK, newOK bool
		fc.Old, oldOK = entryText(store, old[ch.Path])
		fc.New, newOK = entryText(store, cur[ch.Path])
		fc.NoContent = !oldOK || !newOK
		fc.Binary = isBinary(fc.Old) || isBinary(fc.New)
		out = append(out, fc)
	}
	return out, nil
}

func entriesByPath(m *checkpoint.Manifest) map[string]*checkpoint.Entry {
	out := make(map[string]*checkpoint.Entry, len(m.Entries))
	for i := range m.Entries {
		e := &m.Entries[i]
		out[filepath.Join(m.Roots[e.Root], filepath.FromSlash(e.Rel))] = e
	}
	return out
}

// entryText is an entry's content as text: "" for an absent entry, a
// link as its target; ok false when the content was not kept.
func entryText(s *checkpoint.Store, e *checkpoint.Entry) (string, bool) {
	switch {
	case e == nil:
		return "", true
	case e.Kind == checkpoint.KindLink:
		return "→ " + e.Target + "\n", true
	case e.Kind != checkpoint.KindFile:
		return "", false
	}
	b, err := s.Content(e)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func isBinary(s string) bool { return !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 }
