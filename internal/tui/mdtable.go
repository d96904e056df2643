package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Tables are the one construct a line-by-line renderer cannot draw as
// the lines arrive: a column's width is known only when the table ends.
// The stream holds a table's rows until a line that is not a row, and the
// live area draws the rows held so far, aligned, so nothing is hidden.

// maxTableRows bounds the rows held: a longer table is drawn in parts,
// each aligned on its own, so a huge table cannot make every chunk
// re-render all of it.
const maxTableRows = 100

// tableRow reports whether a source line can be a table row: it has a
// cell separator outside inline code.
func tableRow(line string) bool {
	t := strings.TrimSpace(line)
	return strings.Contains(t, "|") && !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~")
}

// splitRow cuts a row into its cells: outer pipes dropped, `\|` kept as a
// pipe inside a cell.
func splitRow(line string) []string {
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '|':
			cur.WriteByte('|')
			i++
		case t[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(t[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// alignments reads the separator row: 'l', 'r' or 'c' per column.
func alignments(sep string) []byte {
	cells := splitRow(sep)
	out := make([]byte, len(cells))
	for i, c := range cells {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		switch {
		case left && right:
			out[i] = 'c'
		case right:
			out[i] = 'r'
		default:
			out[i] = 'l'
		}
	}
	return out
}

// table renders rows (the header first when header is set, then the
// body; the separator row is not among them) aligned to fit width.
func (md *markdown) table(rows [][]string, align []byte, header bool, width int) []string {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return nil
	}
	cells := make([][]string, len(rows))
	widths := make([]int, cols)
	for i, r := range rows {
		cells[i] = make([]string, cols)
		for j := range cols {
			if j < len(r) {
				cells[i][j] = md.inline(sanitize(r[j]))
			}
			widths[j] = max(widths[j], ansi.StringWidth(cells[i][j]))
		}
	}
	w := max(width-2, 10)
	var out []string
	if !fitWidths(widths, w-3*(cols-1)) {
		// Too many columns for the width: each row as wrapped text.
		for _, r := range cells {
			out = append(out, wrapIndent("", strings.Join(r, " │ "), w)...)
		}
		return out
	}
	for i, r := range cells {
		var b strings.Builder
		for j, c := range r {
			if j > 0 {
				b.WriteString(md.rule.Render(" │ "))
			}
			a := byte('l')
			if j < len(align) {
				a = align[j]
			}
			c = ansi.Truncate(c, widths[j], "…")
			if header && i == 0 {
				c = md.bold.Render(c)
			}
			b.WriteString(pad(c, widths[j], a))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if header && i == 0 {
			parts := make([]string, cols)
			for j, w := range widths {
				parts[j] = strings.Repeat("─", w)
			}
			out = append(out, md.rule.Render(strings.Join(parts, "─┼─")))
		}
	}
	return out
}

// fitWidths narrows the widest columns until they fit in total columns,
// leaving each at least 3; false when they cannot fit.
func fitWidths(widths []int, total int) bool {
	sum := 0
	for _, w := range widths {
		sum += w
	}
	for sum > total {
		widest := 0
		for j, w := range widths {
			if w > widths[widest] {
				widest = j
			}
		}
		if widths[widest] <= 3 {
			return false
		}
		widths[widest]--
		sum--
	}
	return true
}

func pad(s string, w int, align byte) string {
	gap := max(w-ansi.StringWidth(s), 0)
	switch align {
	case 'r':
		return strings.Repeat(" ", gap) + s
	case 'c':
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}
