package tui

import (
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
)

// alwaysOffered reports whether "allow always" can remember anything for
// the dialog's call.
func (m *model) alwaysOffered(a *approval) bool { return !a.hasScope || len(a.scope.Rules) > 0 }

// alwaysText says which calls "allow always" lets through.
func (m *model) alwaysText(a *approval) string {
	if !a.hasScope || a.scope.Desc == "" {
		return "every call of " + sanitize(a.call.name)
	}
	return sanitize(a.scope.Desc)
}

// settingsFile is the path of the project's or the user's settings file
// (where "project" or "user"), "" when "allow always" cannot save there.
func (m *model) settingsFile(where string) string {
	if s, ok := probe[AlwaysScoper](m); ok {
		return s.SettingsFile(where)
	}
	return ""
}

// saveOffered reports whether the rules of a can be saved to the settings
// file at path.
func (m *model) saveOffered(a *approval, path string) bool {
	return path != "" && a.hasScope && len(a.scope.Rules) > 0
}

// shortPath shows path relative to the workspace, or with ~ for the home
// directory, as a reader would write it.
func (m *model) shortPath(path string) string {
	if m.cfg.Root != "" {
		if rel, err := filepath.Rel(m.cfg.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// allowAndSave answers "allow always" and saves its rules to the
// project's or the user's settings file. A failed save still allows for
// this session, and says so.
func (m *model) allowAndSave(project bool) tea.Cmd {
	a := m.approval
	where := "user"
	if project {
		where = "project"
	}
	s, _ := probe[AlwaysScoper](m)
	path := m.settingsFile(where)
	if !m.saveOffered(a, path) {
		return nil
	}
	rules := a.scope.Rules
	err := s.SaveAllowRules(where, rules)
	m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways})
	if err != nil {
		return m.commit(m.st.err.Render("✗ " + sanitize(err.Error()) + " (allowed for this session only)"))
	}
	return m.commit(m.st.dim.Render("saved " + sanitize(strings.Join(rules, ", ")) + " to " + m.shortPath(path)))
}
