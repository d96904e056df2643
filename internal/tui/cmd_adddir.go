package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// DirAdder adds a directory to the workspace for the rest of the session
// (/add-dir). added is the directory as the tools see it; caveats say
// what does not cover it.
type DirAdder interface {
	AddDir(dir string) (added string, caveats []string, err error)
}

func init() {
	registerCommand(slashCommand{name: "/add-dir", help: "DIR  let the tools read and write DIR too, for this session", run: (*model).addDirCommand})
}

func (m *model) addDirCommand(arg string) tea.Cmd {
	a, ok := probe[DirAdder](m)
	if !ok {
		return m.unavailable("/add-dir")
	}
	if arg == "" {
		return m.commit(m.st.err.Render("✗ /add-dir DIR: name the directory to add"))
	}
	added, caveats, err := a.AddDir(arg)
	if err != nil {
		return m.commit(m.st.err.Render("✗ /add-dir: " + sanitize(err.Error())))
	}
	lines := []string{"added " + sanitize(added) + " to the workspace: the tools may read and write there"}
	for _, c := range caveats {
		lines = append(lines, m.st.dim.Render("  "+sanitize(c)))
	}
	return m.commit(strings.Join(lines, "\n"))
}
