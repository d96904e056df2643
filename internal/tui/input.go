package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// key handles one key press. Ctrl+C and Esc mean "stop" while anything
// runs, before any other reading of the key.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	escArmed := m.escArmed
	m.escArmed = false
	if s != "ctrl+c" {
		m.armed = false
	}
	if m.search != nil && m.approval == nil && m.picker == nil {
		if cmd, done := m.searchKey(k); done {
			return cmd
		}
	}
	if m.question != nil && s != "ctrl+c" {
		return m.questionKey(k)
	}
	switch s {
	case "ctrl+c":
		switch {
		case m.busy:
			m.stop()
			m.unqueue()
		case m.compacting:
			m.stopCompressing()
		case m.cmds.stopShell != nil:
			m.cmds.stopShell() // a !cmd (cmd_shell.go)
		case m.picker != nil:
			m.picker = nil
		case m.input.Value() != "":
			m.input.Reset()
			m.hint = ""
		case m.armed:
			return tea.Quit
		default:
			m.armed = true
		}
		return nil
	case "esc":
		switch {
		case m.approval != nil && m.approval.reasoning:
			m.approval.reasoning, m.approval.reason = false, nil
		case m.picker != nil:
			m.picker = nil
		case m.openMenu() != nil && m.approval == nil:
			m.closeMenu() // complete_menu.go
		case m.busy:
			m.stop()
			m.unqueue()
		case m.compacting:
			m.stopCompressing()
			m.unqueue()
		case m.cmds.stopShell != nil:
			m.cmds.stopShell() // a !cmd (cmd_shell.go)
		case m.input.Value() == "" && m.approval == nil && m.rewinder() != nil:
			// Esc twice on an empty input opens /rewind.
			m.hint = ""
			if escArmed {
				return m.openRewind()
			}
			m.escArmed = true
		default:
			m.hint = ""
		}
		return nil
	case "ctrl+t":
		return m.toggleThoughts()
	case "ctrl+o":
		return m.toggleOutput()
	}
	if m.approval != nil {
		return m.dialogKey(k)
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if m.menuKey(s) { // complete_menu.go
		return nil
	}
	switch s {
	case "shift+tab":
		return m.cycleMode()
	case "ctrl+y":
		return m.retry()
	case "ctrl+s":
		return m.sendNow() // steer.go
	case "ctrl+r":
		return m.startSearch()
	case "ctrl+g":
		return m.openEditor()
	case "tab":
		m.complete()
		return nil
	case "enter":
		text := strings.TrimSpace(unmarkTabs(m.input.Value()))
		if text == "" {
			return nil
		}
		m.input.Reset()
		m.hint = ""
		m.remember(text)
		if strings.HasPrefix(text, "/") && !strings.Contains(text, "\n") {
			return m.command(text)
		}
		if strings.HasPrefix(text, "!") {
			return m.bang(strings.TrimSpace(text[1:])) // cmd_shell.go
		}
		if m.busy || m.compacting {
			// Type-ahead: sent as the next prompt when this turn ends.
			m.queued = append(m.queued, text)
			return nil
		}
		return m.submit(text)
	case "up":
		if m.input.Line() == 0 && m.histPos > 0 {
			if m.histPos == len(m.history) {
				m.draft = m.input.Value()
			}
			m.histPos--
			m.input.SetValue(markTabs(m.history[m.histPos]))
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 && m.histPos < len(m.history) {
			m.histPos++
			if m.histPos == len(m.history) {
				m.input.SetValue(markTabs(m.draft))
			} else {
				m.input.SetValue(markTabs(m.history[m.histPos]))
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.updateHint()
	m.warm()
	return cmd
}

// warm has the session open the provider's connection while a prompt is
// typed (see Warmer): the request then starts without a handshake.
func (m *model) warm() {
	if m.input.Value() == "" {
		return
	}
	if w, ok := m.cfg.Session.(Warmer); ok {
		w.WarmProvider()
	}
}

// unqueue puts the messages typed ahead back into the input box, before
// what it holds: the request they waited for was stopped, and they are
// not sent unless sent again.
func (m *model) unqueue() {
	if len(m.queued) == 0 {
		return
	}
	text := strings.Join(m.queued, "\n\n")
	if cur := m.input.Value(); cur != "" {
		text += "\n\n" + cur
	}
	m.queued = nil
	m.input.SetValue(markTabs(text))
	m.hint = ""
}

func (m *model) remember(text string) {
	if n := len(m.history); n == 0 || m.history[n-1] != text {
		m.history = append(m.history, text)
	}
	m.histPos, m.draft = len(m.history), ""
}

// Pastes longer than these are collapsed in the editor to a placeholder
// and expanded when sent: a screenful of log would bury the prompt.
const (
	pasteMaxLines = 10
	pasteMaxChars = 1000
)

var pasteRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Pasted text #(\d+) \+\d+ lines\]`) })

func (m *model) paste(text string) tea.Cmd {
	if m.approval != nil || m.picker != nil {
		return nil
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if n := strings.Count(text, "\n") + 1; n > pasteMaxLines || len(text) > pasteMaxChars {
		m.pastes = append(m.pastes, text)
		m.input.InsertString(fmt.Sprintf("[Pasted text #%d +%d lines]", len(m.pastes), n))
		m.warm()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(tea.PasteMsg{Content: markTabs(text)})
	m.warm()
	return cmd
}

// tabMark stands for a tab in the editor, whose text area turns tabs into
// spaces: a pasted Makefile rule, TSV row or Go line keeps its tabs when
// sent. It shows as ␉ while edited.
const tabMark = "\u2409"

func markTabs(s string) string   { return strings.ReplaceAll(s, "\t", tabMark) }
func unmarkTabs(s string) string { return strings.ReplaceAll(s, tabMark, "\t") }

// expandPastes puts the collapsed pastes back into a prompt being sent.
func (m *model) expandPastes(text string) string {
	if len(m.pastes) == 0 {
		return text
	}
	return pasteRe().ReplaceAllStringFunc(text, func(ph string) string {
		n, err := strconv.Atoi(pasteRe().FindStringSubmatch(ph)[1])
		if err != nil || n < 1 || n > len(m.pastes) {
			return ph
		}
		return m.pastes[n-1]
	})
}

// complete handles Tab: a slash command's name at the start of the
// editor, or a path after @ at the cursor's word.
func (m *model) complete() {
	val := m.input.Value()
	if strings.HasPrefix(val, "/") && !strings.ContainsAny(val, " \n") {
		cands := m.commandsWithPrefix(val)
		switch len(cands) {
		case 0:
			m.hint = "no command " + val + " (try /help)"
		case 1:
			m.input.SetValue(cands[0] + " ")
			m.hint = ""
		default:
			m.input.SetValue(commonPrefix(cands))
			m.hint = strings.Join(cands, "  ")
		}
		return
	}
	// The word before the cursor, on the cursor's line.
	lines := strings.Split(val, "\n")
	row := m.input.Line()
	if row >= len(lines) {
		return
	}
	line := []rune(lines[row])
	col := min(m.input.Column(), len(line))
	start := col
	for start > 0 && line[start-1] != ' ' {
		start--
	}
	word := string(line[start:col])
	if !strings.HasPrefix(word, "@") {
		return
	}
	cands := m.pathCandidates(word[1:])
	switch len(cands) {
	case 0:
		m.hint = "no file matches " + word
		return
	case 1:
		m.hint = ""
	default:
		m.hint = strings.Join(cands[:min(len(cands), 8)], "  ")
		if len(cands) > 8 {
			m.hint += fmt.Sprintf("  (+%d)", len(cands)-8)
		}
	}
	fill := commonPrefix(cands)
	if len(fill) > len(word)-1 {
		m.input.InsertString(fill[len(word)-1:])
	}
}

// pathCandidates lists the entries under the workspace whose path starts
// with prefix (a directory gets a trailing slash). Hidden entries are
// listed only when the prefix names them.
func (m *model) pathCandidates(prefix string) []string {
	if m.cfg.Root == "" || strings.Contains(prefix, "..") || filepath.IsAbs(prefix) {
		return nil
	}
	dir, base := filepath.Split(prefix)
	entries, err := os.ReadDir(filepath.Join(m.cfg.Root, dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) || n == ".git" {
			continue
		}
		p := dir + n
		if e.IsDir() {
			p += "/"
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// updateHint opens, filters or closes the completion menu for what the
// editor holds (complete_menu.go).
func (m *model) updateHint() {
	m.hint = ""
	m.refreshMenu()
}
