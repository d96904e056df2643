package tui

import "strings"

// atWord returns the word before the cursor on the cursor's line.
func (m *model) atWord() string {
	lines := strings.Split(m.input.Value(), "\n")
	row := m.input.Line()
	if row >= len(lines) {
		return ""
	}
	line := []rune(lines[row])
	col := min(m.input.Column(), len(line))
	start := col
	for start > 0 && line[start-1] != ' ' {
		start--
	}
	return string(line[start:col])
}
