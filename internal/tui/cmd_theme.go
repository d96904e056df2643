package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

func init() {
	registerCommand(slashCommand{name: "/theme", help: "[dark|light]  show the theme, or switch (saved in your settings)", run: (*model).themeCommand})
}

// themes are the themes /theme offers, dark (the default) first.
var themes = []string{"dark", "light"}

// lightStyles is the palette for a light background: the dark theme's
// bright colours (yellow above all) wash out on white, so it takes the
// normal ones.
func lightStyles() styles {
	s := newStyles(false)
	plain := lipgloss.NewStyle()
	s.user = plain.Foreground(lipgloss.Color("4")).Bold(true)
	s.dim = plain.Foreground(lipgloss.Color("243"))
	s.err = plain.Foreground(lipgloss.Color("1"))
	s.ok = plain.Foreground(lipgloss.Color("2"))
	s.warn = plain.Foreground(lipgloss.Color("130"))
	s.dialog = s.dialog.BorderForeground(lipgloss.Color("130"))
	return s
}

// applyTheme switches the palette. Without colour (NO_COLOR) there is
// nothing to switch: the theme is only remembered.
func (m *model) applyTheme(name string) {
	m.cmds.theme = name
	switch {
	case m.cfg.NoColor:
	case name == "light":
		m.st = lightStyles()
	default:
		m.st = newStyles(false)
	}
}

func (m *model) themeCommand(arg string) tea.Cmd {
	cur := m.cmds.theme
	if cur == "" {
		cur = "dark"
	}
	if arg == "" {
		return m.commit("theme: " + cur + " (themes: " + strings.Join(themes, ", ") + ")")
	}
	name := strings.ToLower(arg)
	if name != "dark" && name != "light" {
		return m.commit(m.st.err.Render("✗ unknown theme " + arg + ": choose dark or light"))
	}
	m.applyTheme(name)
	msg := "theme set to " + name
	if s, ok := probe[ThemeSaver](m); ok {
		if err := s.SaveTheme(name); err != nil {
			msg += " for this session (not saved: " + err.Error() + ")"
		} else {
			msg += " and saved in your settings"
		}
	}
	if m.cfg.NoColor {
		msg += "; NO_COLOR is set, so ply shows no colour either way"
	}
	return m.commit(m.st.dim.Render(msg))
}
