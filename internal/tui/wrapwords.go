package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// fitWords breaks each line of a block that is wider than width at the
// spaces between its words, so that the terminal does not cut a word in
// two where the line meets the screen's edge. A word longer than the
// width is left whole (the terminal wraps it). Escape sequences are kept.
func fitWords(block string, width int) string {
	if width <= 0 || len(block) <= width {
		return block
	}
	if !anyWider(block, width) {
		return block
	}
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		if len(l) > width && textWidth(l) > width {
			lines[i] = wrapAtSpaces(l, width)
		}
	}
	return strings.Join(lines, "\n")
}

// anyWider reports whether a line of block is wider than width. A line
// of no more bytes than columns fits: no character is wider than its
// bytes.
func anyWider(block string, width int) bool {
	for len(block) > width {
		end := strings.IndexByte(block, '\n')
		if end < 0 {
			end = len(block)
		}
		if end > width && textWidth(block[:end]) > width {
			return true
		}
		if end == len(block) {
			break
		}
		block = block[end+1:]
	}
	return false
}

// textWidth is the columns s takes: its length when it is plain ASCII.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// wrapAtSpaces breaks l at spaces into lines of at most width columns
// where its words allow. Only spaces break: a path or a URL stays whole,
// to be copied. Escape sequences hold no spaces, so none is cut.
func wrapAtSpaces(l string, width int) string {
	var b strings.Builder
	b.Grow(len(l) + 8)
	col := 0
	for i, w := range strings.Split(l, " ") {
		ww := textWidth(w)
		if i > 0 {
			if col > 0 && col+1+ww > width && strings.TrimSpace(ansi.Strip(w)) != "" {
				b.WriteByte('\n')
				col = 0
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += ww
	}
	return b.String()
}
