package tui

import tea "charm.land/bubbletea/v2"

// unechoed are the commands whose line is not shown again above their
// output: /clear starts on a clear screen, /quit leaves.
var unechoed = map[string]bool{"/clear": true, "/quit": true, "/exit": true}

// echoCommand shows the command line the user ran above what the command
// prints, as a prompt is shown above its reply. It is committed before
// the command runs, so it comes first.
func (m *model) echoCommand(name, line string) tea.Cmd {
	if unechoed[name] {
		return nil
	}
	return m.commit(m.renderUser(line))
}
