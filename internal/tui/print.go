package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// clearedMsg says that the screen was cleared and redrawn: blocks held
// meanwhile may be printed.
type clearedMsg struct{}

// clearDelay is how long clearThen waits for the renderer to draw a frame
// after clearing: Bubble Tea writes a clear with the next frame, but a
// print at once, so a print right after a clear would land before it.
const clearDelay = 50 * time.Millisecond

// flush hands the queued blocks to the terminal, one print in flight at a
// time, and no more lines at once than fit above the live area: the
// renderer inserts a print above the frame, and a print taller than that
// room loses its last lines under the frame (a long resumed conversation
// stopped at a point that depended on the terminal's height).
func (m *model) flush() tea.Cmd {
	s, ok := m.nextPrint()
	if !ok {
		return nil
	}
	return tea.Sequence(tea.Println(s), func() tea.Msg { return printedMsg{} })
}

// nextPrint takes what the next print writes, when one may start.
func (m *model) nextPrint() (string, bool) {
	if m.printing || m.holdPrint || len(m.toPrint) == 0 {
		return "", false
	}
	m.printing = true
	s := strings.Join(m.toPrint, "\n")
	clear(m.toPrint)
	m.toPrint = m.toPrint[:0]
	if head, rest, cut := cutRows(s, m.printRoom(), m.width); cut {
		s = head
		m.toPrint = append(m.toPrint, rest)
	}
	return s, true
}

// frameLag bounds how long after View makes a frame the renderer may
// still be showing the one before: it draws on a timer of its own, and
// inserts a print above the frame it drew last.
const frameLag = time.Second

// replacedFrame is a frame View replaced: how tall it was, and when.
type replacedFrame struct {
	lines int
	at    time.Time
}

// noteFrame records that View made a frame of lines rows.
func (m *model) noteFrame(lines int) {
	if lines == m.frameLines {
		return
	}
	now := m.now()
	keep := m.replaced[:0]
	for _, f := range m.replaced {
		if now.Sub(f.at) < frameLag {
			keep = append(keep, f)
		}
	}
	m.replaced = append(keep, replacedFrame{lines: m.frameLines, at: now})
	m.frameLines = lines
}

// printRoom is how many rows a print may take: the screen less the
// tallest live area the renderer may be showing (the last frame, or one
// it replaced within frameLag), less one for the cursor's row.
func (m *model) printRoom() int {
	tallest := max(m.frameLines, 1)
	now := m.now()
	for _, f := range m.replaced {
		if now.Sub(f.at) < frameLag {
			tallest = max(tallest, f.lines)
		}
	}
	return max(m.height-tallest-1, 1)
}

// cutRows splits s after the lines that fill room rows of a terminal
// width columns wide (a line wider than the terminal wraps); cut is false
// when all of s fits.
func cutRows(s string, room, width int) (head, rest string, cut bool) {
	lines := strings.Count(s, "\n") + 1
	if width <= 0 || lines+len(s)/width < room {
		return s, "", false // fast path: even byte counts fit
	}
	rows, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '\n' {
			continue
		}
		r := 1
		if w := ansi.StringWidth(s[start:i]); w > width {
			r += (w - 1) / width
		}
		if rows+r > room && start > 0 {
			return s[:start-1], s[start:], true
		}
		rows += r
		start = i + 1
	}
	return s, "", false
}

// clearThen clears the screen and then prints blocks, after the renderer
// has drawn the cleared screen (see clearDelay); blocks committed in the
// meantime follow them.
func (m *model) clearThen(blocks ...string) tea.Cmd {
	m.holdPrint = true
	for _, b := range blocks {
		m.commit(b)
	}
	return tea.Sequence(tea.ClearScreen, tea.Tick(clearDelay, func(time.Time) tea.Msg { return clearedMsg{} }))
}
