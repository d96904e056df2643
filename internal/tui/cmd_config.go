package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/spell"
)

// Configurer shows and changes the settings files (/config): the
// settings with their values and files, setting one (where: "user" or
// "project") with what the session did with it, and removing one.
type Configurer interface {
	ConfigSettings() []info.Setting
	SetSetting(name, text, where string) (note string, err error)
	UnsetSetting(name, where string) (ok bool, err error)
}

func init() {
	registerCommand(slashCommand{name: "/config", help: "[NAME | set NAME VALUE | unset NAME] [--project]  show the settings, or change one in your settings file", run: (*model).configCommand})
}

const configUsage = "/config lists the settings; /config NAME shows one; /config set NAME VALUE and /config unset NAME change your settings file (--project: the project's)"

func (m *model) configCommand(arg string) tea.Cmd {
	c, ok := probe[Configurer](m)
	if !ok {
		return m.unavailable("/config")
	}
	where := "user"
	var words []string
	for _, w := range strings.Fields(arg) {
		if w == "--project" || w == "--user" {
			where = strings.TrimPrefix(w, "--")
			continue
		}
		words = append(words, w)
	}
	fail := func(err error) tea.Cmd { return m.commit(m.st.err.Render("✗ /config: " + sanitize(err.Error()))) }
	switch {
	case len(words) == 0:
		return m.commit(m.renderSettings(c.ConfigSettings()))
	case words[0] == "set" && len(words) >= 3:
		name, value := words[1], strings.Join(words[2:], " ")
		if name == "ui.theme" && value != "dark" && value != "light" {
			return m.commit(m.st.err.Render("✗ /config: ui.theme is dark or light, not " + sanitize(value)))
		}
		note, err := c.SetSetting(name, value, where)
		if err != nil {
			return fail(err)
		}
		if name == "ui.theme" {
			m.applyTheme(value)
		}
		return m.commit(fmt.Sprintf("%s set to %s in your %s settings; %s", sanitize(name), sanitize(value), where, sanitize(note)))
	case words[0] == "unset" && len(words) == 2:
		removed, err := c.UnsetSetting(words[1], where)
		if err != nil {
			return fail(err)
		}
		if !removed {
			return m.commit(m.st.dim.Render("the " + where + " settings do not set " + sanitize(words[1])))
		}
		return m.commit(sanitize(words[1]) + " removed from your " + where + " settings; it takes effect when ply next starts")
	case len(words) == 1 && words[0] != "set" && words[0] != "unset":
		var names []string
		for _, s := range c.ConfigSettings() {
			if s.Name == words[0] {
				return m.commit(m.renderSettings([]info.Setting{s}))
			}
			names = append(names, s.Name)
		}
		msg := "unknown setting " + sanitize(words[0])
		if near := spell.Closest(words[0], names, 3, strings.ToLower, func(cand string, d int) bool { return d <= max(2, len(cand)/4) }); len(near) > 0 {
			msg += " (did you mean " + strings.Join(near, ", ") + "?)"
		}
		return fail(errors.New(msg))
	}
	return m.commit(m.st.err.Render("✗ " + configUsage))
}

// renderSettings shows the settings the files set, then the names of
// those they leave at their defaults.
func (m *model) renderSettings(list []info.Setting) string {
	var set, unset []string
	for _, s := range list {
		if s.Value == "" {
			unset = append(unset, s.Name)
			continue
		}
		line := "  " + m.st.bold.Render(sanitize(s.Name)) + " = " + sanitize(s.Value) + m.st.dim.Render("  ("+sanitize(s.From)+")")
		set = append(set, line)
	}
	if len(list) == 1 {
		s := list[0]
		text := s.Name + ": " + s.Kind
		if s.UserOnly {
			text += ", read from your own settings only"
		}
		if s.Value == "" {
			return text + "; not set (the default holds)"
		}
		return text + "\n" + set[0]
	}
	out := []string{"Settings (" + configUsage + "):"}
	if len(set) == 0 {
		out = append(out, "  no setting is set in the files: every default holds")
	}
	out = append(out, set...)
	if len(unset) > 0 {
		out = append(out, m.st.dim.Render("  at their defaults: "+strings.Join(unset, ", ")))
	}
	return strings.Join(out, "\n")
}
