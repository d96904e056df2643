package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

type styles struct {
	user, dim, err, ok, warn, bold, dialog lipgloss.Style
	// modes colours each approval mode in the footer; yolo is red.
	modes map[string]lipgloss.Style
}

// newStyles returns the palette; with noColor every style only lays out
// (borders, padding), so the UI reads the same without colour.
func newStyles(noColor bool) styles {
	plain := lipgloss.NewStyle()
	s := styles{user: plain, dim: plain, err: plain, ok: plain, warn: plain, bold: plain,
		dialog: plain.Border(lipgloss.RoundedBorder()).Padding(0, 1)}
	if noColor {
		return s
	}
	s.user = plain.Foreground(lipgloss.Color("12")).Bold(true)
	s.dim = plain.Foreground(lipgloss.Color("8"))
	s.err = plain.Foreground(lipgloss.Color("9"))
	s.ok = plain.Foreground(lipgloss.Color("10"))
	s.warn = plain.Foreground(lipgloss.Color("11"))
	s.bold = plain.Bold(true)
	s.dialog = s.dialog.BorderForeground(lipgloss.Color("11"))
	s.modes = map[string]lipgloss.Style{
		"plan":      plain.Foreground(lipgloss.Color("14")),
		"default":   plain.Foreground(lipgloss.Color("10")),
		"auto-edit": plain.Foreground(lipgloss.Color("11")),
		"auto":      plain.Foreground(lipgloss.Color("13")),
		"yolo":      plain.Foreground(lipgloss.Color("9")).Bold(true),
	}
	return s
}

func plainTextareaStyles() textarea.Styles {
	st := textarea.DefaultDarkStyles()
	plain := lipgloss.NewStyle()
	for _, s := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		*s = textarea.StyleState{Base: plain, Text: plain, LineNumber: plain, CursorLineNumber: plain,
			CursorLine: plain, EndOfBuffer: plain, Placeholder: plain, Prompt: plain}
	}
	st.Cursor.Color = nil // the terminal's default cursor colour
	return st
}

// wrap breaks plain text at width for the live area.
func wrap(text string, width int) string {
	return lipgloss.NewStyle().Width(max(width-2, 10)).Render(text)
}

func (m *model) renderUser(text string) string {
	lines := strings.Split(sanitizeLines(text), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(wrapIndent("", l, max(m.width-3, 10)), "\n  ")
	}
	return m.st.user.Render("> ") + strings.Join(lines, "\n  ")
}

// sanitizeLines sanitizes each line of a multi-line text.
func sanitizeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = sanitize(l)
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	first, rest, more := strings.Cut(s, "\n")
	first = abbreviate(first, n)
	if more {
		first += " (+" + plural(strings.Count(rest, "\n")+1, "line") + ")"
	}
	return first
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 1)]) + "…"
	}
	return s
}

// View draws the live area: the open line of the reply being streamed,
// the running tool calls, the dialog or picker, the task list, the editor
// and the footer. Everything finished is above it, already printed, and
// is never drawn again.
func (m *model) View() tea.View {
	parts := make([]string, 0, 8)
	if m.busy {
		if m.thinking.len() > 0 {
			parts = append(parts, m.thoughtView())
		}
		if m.reply != nil {
			if t := m.reply.view(); t != "" {
				parts = append(parts, m.tail(t, max(m.height-8-len(m.cards)*2, 3)))
			}
		}
	}
	for _, c := range m.cards {
		parts = append(parts, m.renderCard(c, true))
	}
	if m.approval != nil {
		parts = append(parts, m.renderDialog(m.approval))
	}
	if m.picker != nil {
		parts = append(parts, m.renderPicker())
	}
	if m.question != nil {
		parts = append(parts, m.renderQuestion())
	}
	if t := m.renderTodos(); t != "" && m.approval == nil && m.picker == nil {
		parts = append(parts, t)
	}
	if p := m.progressView(); p != "" {
		parts = append(parts, p)
	}
	if m.busy || m.compacting {
		line := m.spin.View() + " working… " + m.st.dim.Render("(esc to stop)")
		switch {
		case m.cancelling:
			line = m.spin.View() + " stopping…"
		case m.compacting && !m.busy:
			line = m.spin.View() + " compressing… " + m.st.dim.Render("(esc to stop)")
		}
		if m.status != "" {
			line += " " + m.st.dim.Render(m.status)
		}
		// The line is styled: cut it by its visible width, keeping its
		// escape sequences whole.
		parts = append(parts, ansi.Truncate(line, m.width-1, "…"))
		if h := m.queueHint(); h != "" {
			parts = append(parts, m.st.dim.Render(ansi.Truncate(h, m.width-1, "…")))
		}
	}
	var cur *tea.Cursor
	if m.approval == nil && m.picker == nil && m.question == nil {
		if cur = m.input.Cursor(); cur != nil {
			// The real cursor (NoColor): the editor's position plus the
			// lines drawn above it.
			for _, p := range parts {
				cur.Y += strings.Count(p, "\n") + 1
			}
		}
		parts = append(parts, m.inputView())
		if menu := m.menuView(); menu != "" { // complete_menu.go
			parts = append(parts, menu)
		} else if m.hint != "" {
			parts = append(parts, m.st.dim.Render(abbreviate(m.hint, m.width-1)))
		}
	}
	parts = append(parts, m.footer())
	content := strings.Join(parts, "\n")
	if n := strings.Count(content, "\n") + 1; n > m.height {
		// Taller than the screen (many running cards, a dialog): the
		// live area cannot scroll, so its top gives way and the dialog,
		// editor and footer stay in view.
		content = m.tail(content, m.height)
		if cur != nil {
			if cur.Y -= n - m.height; cur.Y < 0 {
				cur = nil
			}
		}
	}
	m.noteFrame(strings.Count(content, "\n") + 1)
	v := tea.NewView(content)
	v.Cursor = cur
	return v
}

// tail keeps the last n lines of s: the live area cannot scroll.
func (m *model) tail(s string, n int) string {
	if strings.Count(s, "\n") < n {
		return s
	}
	lines := strings.Split(s, "\n")
	return strings.Join(lines[len(lines)-n:], "\n")
}

func count(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
}

// inputCache keeps the input box's drawing while what it shows stays the
// same: drawing it costs more than the rest of a frame, and while a reply
// streams every chunk draws a frame with the box unchanged.
type inputCache struct {
	key  string
	view string
}

// inputView draws the input box, or returns the last drawing when nothing
// it depends on changed. The box's cursor does not blink (its blink
// messages are not forwarded), so its text, cursor position, width and
// focus are all it depends on.
func (m *model) inputView() string {
	key := fmt.Sprintf("%d,%d,%d,%d,%t\x00%s", m.width, m.input.Width(), m.input.Line(), m.input.Column(), m.input.Focused(), m.input.Value())
	if key != m.inputCache.key || m.inputCache.view == "" {
		m.inputCache = inputCache{key: key, view: m.input.View()}
	}
	return m.inputCache.view
}
