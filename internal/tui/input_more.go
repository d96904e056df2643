package tui

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Ctrl+R searches the prompts sent before, newest first, as a shell's
// reverse search does; Ctrl+G edits the prompt in the user's editor.

// histSearch is Ctrl+R's state: what was typed, the history entry shown
// (-1: none matches), and the input to go back to on Esc.
type histSearch struct {
	query string
	at    int
	draft string
}

// startSearch enters the search, or, in it, goes to the next older match.
func (m *model) startSearch() tea.Cmd {
	if m.search == nil {
		m.search = &histSearch{at: len(m.history), draft: m.input.Value()}
	}
	m.findOlder(m.search.at - 1)
	return nil
}

// findOlder shows the newest entry at or before from that holds the
// query; none leaves the last match and says so.
func (m *model) findOlder(from int) {
	s := m.search
	for i := min(from, len(m.history)-1); i >= 0; i-- {
		if strings.Contains(strings.ToLower(m.history[i]), strings.ToLower(s.query)) {
			s.at = i
			m.input.SetValue(markTabs(m.history[i]))
			m.hint = fmt.Sprintf("search: %s  (Ctrl+R older · Enter keep · Esc back)", s.query)
			return
		}
	}
	m.hint = fmt.Sprintf("search: %s  (no older match · Esc back)", s.query)
}

// searchKey handles a key while searching; false leaves it to the editor
// (the search ends, keeping the entry shown).
func (m *model) searchKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	s := m.search
	switch k.String() {
	case "ctrl+r":
		return m.startSearch(), true
	case "esc", "ctrl+c":
		m.search, m.hint = nil, ""
		m.input.SetValue(s.draft)
		return nil, true
	case "enter":
		m.search, m.hint = nil, "" // keep the entry, to edit or send
		return nil, true
	case "backspace":
		if s.query != "" {
			s.query = s.query[:len(s.query)-len(string([]rune(s.query)[len([]rune(s.query))-1]))]
			m.findOlder(len(m.history) - 1)
		}
		return nil, true
	}
	if k.Text != "" {
		s.query += k.Text
		m.findOlder(s.at)
		return nil, true
	}
	m.search, m.hint = nil, ""
	return nil, false
}

// getenv is the environment the editor is chosen from; tests replace it.
var getenv = os.Getenv

// editorMsg brings the edited prompt back (or why it could not be).
type editorMsg struct {
	text string
	err  error
}

// openEditor writes the prompt to a temporary file and opens it in
// $VISUAL, else $EDITOR, else vi; the file's text replaces the prompt
// when the editor exits.
func (m *model) openEditor() tea.Cmd {
	f, err := os.CreateTemp("", "ply-prompt-*.md")
	if err != nil {
		m.hint = "cannot open an editor: " + err.Error()
		return nil
	}
	path := f.Name()
	_, err = f.WriteString(unmarkTabs(m.input.Value()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		m.hint = "cannot open an editor: " + err.Error()
		return nil
	}
	return tea.ExecProcess(editorCommand(path), func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorMsg{err: err}
		}
		b, err := os.ReadFile(path)
		return editorMsg{text: strings.TrimRight(string(b), "\n"), err: err}
	})
}

// editorCommand runs the user's editor on path. The editor variable may
// hold arguments ("code --wait"), so the shell reads it.
func editorCommand(path string) *exec.Cmd {
	editor := cmp.Or(getenv("VISUAL"), getenv("EDITOR"), "vi")
	return exec.Command("sh", "-c", editor+` "$1"`, "ply-editor", path)
}

// editorDone puts the edited text in the input box; a failed editor
// leaves the prompt as it was and says why.
func (m *model) editorDone(msg editorMsg) tea.Cmd {
	if msg.err != nil {
		m.hint = "the editor failed: " + msg.err.Error() + " (the prompt is as it was)"
		return nil
	}
	m.input.SetValue(markTabs(msg.text))
	m.hint = ""
	return nil
}
