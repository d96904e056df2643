package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// diffOpts says how renderDiff lays a diff out.
type diffOpts struct {
	width int
	// wrap breaks a long line onto lines marked ↪ (the dialog, where
	// nothing may be hidden); otherwise it is cut with … (a card).
	wrap bool
	// max bounds the lines drawn (0: all); the rest are counted.
	max int
	// shift moves every line number: a diff of a snippet (an edit's old
	// and new strings) numbered as the lines of its file.
	shift int
}

// renderDiff draws a unified diff (lineDiff's lines, or a tool's display)
// in the one format the approval dialog, the tool cards and /diff share:
// each line with its number (the old file's for a removed line, the new
// file's for the others), its marker and its text; hunks apart by a ⋯
// line; file headers left out. hidden counts the lines beyond o.max.
func (m *model) renderDiff(lines []string, o diffOpts) (out []string, hidden int) {
	nw := numberWidth(lines, o.shift)
	pad := strings.Repeat(" ", nw)
	oldN, newN := 0, 0
	started := false
	for i, l := range lines {
		if o.max > 0 && len(out) >= o.max {
			return out, len(lines) - i
		}
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		if a, b, ok := parseHunk(l); ok {
			oldN, newN = a+o.shift, b+o.shift
			if started {
				out = append(out, m.st.dim.Render(pad+" ⋯"))
			}
			started = true
			continue
		}
		if l == "" || strings.HasPrefix(l, `\`) { // "\ No newline at end of file"
			continue
		}
		marker, text := l[:1], sanitize(l[1:])
		var n int
		switch marker {
		case "-":
			n, oldN = oldN, oldN+1
		case "+":
			n, newN = newN, newN+1
		default:
			marker = " "
			n, oldN, newN = newN, oldN+1, newN+1
		}
		num := pad
		if n > 0 {
			num = fmt.Sprintf("%*d", nw, n)
		}
		out = append(out, m.diffRow(num, marker, text, o)...)
	}
	return out, 0
}

// diffRow draws one line of a diff, wrapped or cut to o.width.
func (m *model) diffRow(num, marker, text string, o diffOpts) []string {
	style := m.md.hl.diffStyle(marker)
	lead := m.st.dim.Render(num) + " " + style.Render(marker) + " "
	room := max(o.width-ansi.StringWidth(num)-3, 1)
	if ansi.StringWidth(text) <= room {
		return []string{lead + style.Render(text)}
	}
	if !o.wrap {
		return []string{lead + style.Render(ansi.Truncate(text, room-1, "")+"…")}
	}
	pieces := strings.Split(ansi.Hardwrap(text, room, true), "\n")
	out := []string{lead + style.Render(pieces[0])}
	cont := strings.Repeat(" ", ansi.StringWidth(num)) + " " + style.Render("↪") + " "
	for _, p := range pieces[1:] {
		out = append(out, cont+style.Render(p))
	}
	return out
}

// numberWidth is the digits of the largest line number the diff shows.
func numberWidth(lines []string, shift int) int {
	top := 1
	for _, l := range lines {
		if a, b, ok := parseHunk(l); ok {
			top = max(top, a+shift, b+shift)
		}
	}
	// A hunk runs past its start: room for a few more digits' worth.
	return len(strconv.Itoa(top + len(lines)))
}

// parseHunk reads a unified hunk header, "@@ -a[,n] +b[,n] @@…", and
// returns the first old and new line numbers.
func parseHunk(l string) (oldStart, newStart int, ok bool) {
	rest, found := strings.CutPrefix(l, "@@ -")
	if !found {
		return 0, 0, false
	}
	oldPart, rest, found := strings.Cut(rest, " +")
	if !found {
		return 0, 0, false
	}
	newPart, _, found := strings.Cut(rest, " @@")
	if !found {
		return 0, 0, false
	}
	a, okA := hunkStart(oldPart)
	b, okB := hunkStart(newPart)
	return a, b, okA && okB
}

// hunkStart reads "a" or "a,n" (a ≥ 0, bounded so sums cannot overflow).
func hunkStart(s string) (int, bool) {
	first, count, hasCount := strings.Cut(s, ",")
	a, err := strconv.Atoi(first)
	if err != nil || a < 0 || a > 1<<30 {
		return 0, false
	}
	if hasCount {
		if n, err := strconv.Atoi(count); err != nil || n < 0 {
			return 0, false
		}
	}
	if a == 0 {
		a = 1 // an empty side (a new file's "-0,0") numbers from 1
	}
	return a, true
}

// lineOf is how many lines of the file at path come before the first
// place old is found: an edit's diff is then numbered as in the file.
// 0 when the file or the text is not found.
func (m *model) lineOf(path, old string) int {
	if old == "" {
		return 0
	}
	text := m.readForDiff(path)
	i := strings.Index(text, old)
	if i < 0 {
		return 0
	}
	return strings.Count(text[:i], "\n")
}
