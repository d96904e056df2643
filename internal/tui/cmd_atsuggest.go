package tui

import (
	"fmt"
	"strings"
)

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

// atHint suggests the paths an @word being typed may complete to, as it
// is typed (Tab fills in what they share); "" when the word is not one.
func (m *model) atHint() string {
	word := m.atWord()
	if !strings.HasPrefix(word, "@") {
		return ""
	}
	cands := m.pathCandidates(word[1:])
	if len(cands) == 0 {
		return ""
	}
	hint := strings.Join(cands[:min(len(cands), 8)], "  ")
	if len(cands) > 8 {
		hint += fmt.Sprintf("  (+%d)", len(cands)-8)
	}
	return hint
}
