package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Renamer names the session (/rename), so that /resume and ply -r NAME
// find it by that name.
type Renamer interface{ Rename(title string) error }

func init() {
	registerCommand(slashCommand{name: "/rename", help: "NAME  name this session: /resume and ply -r NAME find it by it", run: (*model).renameCommand})
}

func (m *model) renameCommand(arg string) tea.Cmd {
	r, ok := probe[Renamer](m)
	if !ok {
		return m.unavailable("/rename")
	}
	name := strings.TrimSpace(arg)
	if name == "" {
		return m.commit(m.st.err.Render("✗ /rename NAME: give the session a name"))
	}
	if err := r.Rename(name); err != nil {
		return m.commit(m.st.err.Render("✗ /rename: " + sanitize(err.Error())))
	}
	return m.commit(m.st.dim.Render("this session is now " + sanitize(name) + ": ply -r '" + sanitize(name) + "' resumes it"))
}

// filtered is the picker's sessions that match its filter: in the name,
// the first prompt or the id, case not mattering.
func (p *picker) filtered() []SessionInfo {
	if p.filter == "" {
		return p.items
	}
	f := strings.ToLower(p.filter)
	var out []SessionInfo
	for _, s := range p.items {
		if strings.Contains(strings.ToLower(s.Title+"\x00"+s.FirstPrompt+"\x00"+s.ID), f) {
			out = append(out, s)
		}
	}
	return out
}
