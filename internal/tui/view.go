package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

type styles struct {
	user, dim, err, ok, warn, bold, dialog lipgloss.Style
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
	return s
}

func plainTextareaStyles() textarea.Styles {
	st := textarea.DefaultDarkStyles()
	plain := lipgloss.NewStyle()
	for _, s := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		*s = textarea.StyleState{Base: plain, Text: plain, LineNumber: plain, CursorLineNumber: plain,
			CursorLine: plain, EndOfBuffer: plain, Placeholder: plain, Prompt: plain}
	}
	return st
}

// wrap breaks plain text at width for the live area.
func wrap(text string, width int) string {
	return lipgloss.NewStyle().Width(max(width-2, 10)).Render(text)
}

func (m *model) renderUser(text string) string {
	return m.st.user.Render("> ") + text
}

func (m *model) renderThought(t string) string {
	// Folded: the reasoning is kept out of the way. UNFINISHED: a key to
	// unfold it.
	return m.st.dim.Render(fmt.Sprintf("∴ thought (%d words)", len(strings.Fields(t))))
}

func formatCompressed(e turn.ChatCompressed) string {
	return fmt.Sprintf("compressed the conversation: ~%d → ~%d tokens", e.TokensBefore, e.TokensAfter)
}

// renderCard draws one tool call: a header with its state and a line with
// its short result.
func (m *model) renderCard(c *callView, live bool) string {
	var icon string
	st := m.st.dim
	switch c.state {
	case scheduler.StateExecuting:
		icon = "⋯"
		if live {
			icon = m.spin.View()
		}
	case scheduler.StateAwaitingApproval:
		icon, st = "?", m.st.warn
	case scheduler.StateSuccess:
		icon, st = "✓", m.st.ok
	case scheduler.StateError:
		icon, st = "✗", m.st.err
	case scheduler.StateCancelled:
		icon = "⊘"
	default:
		icon = "○"
	}
	state := string(c.state)
	if state == "" {
		state = "pending"
	}
	head := st.Render(icon) + " " + m.st.bold.Render(c.name) + " " + abbreviate(argSummary(c.args), max(m.width-len(c.name)-30, 20)) +
		" " + m.st.dim.Render(stateLabel(state, c.duration))
	if !c.state.Terminal() {
		return head
	}
	out := c.display
	if out == "" {
		out = c.output
	}
	line := firstLine(out, max(m.width-8, 20))
	if c.state == scheduler.StateError {
		msg := line
		if c.errorType != "" {
			msg = c.errorType + ": " + line
		}
		return head + "\n  ⎿ " + m.st.err.Render(msg)
	}
	if line == "" {
		return head
	}
	return head + "\n  ⎿ " + m.st.dim.Render(line)
}

func stateLabel(state string, d time.Duration) string {
	switch {
	case d <= 0:
		return state
	case d < time.Millisecond:
		return state + " · <1ms"
	}
	return state + " · " + d.Round(time.Millisecond).String()
}

// argSummary shows the argument a reader cares about most.
func argSummary(args string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return args
	}
	for _, k := range []string{"file_path", "path", "command", "pattern", "absolute_path", "dir_path"} {
		if v, ok := obj[k].(string); ok {
			return v
		}
	}
	return args
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	first, rest, more := strings.Cut(s, "\n")
	first = abbreviate(first, n)
	if more {
		first += fmt.Sprintf(" (+%d lines)", strings.Count(rest, "\n")+1)
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

// renderDialog draws the approval dialog for a.
func (m *model) renderDialog(a *approval) string {
	var b strings.Builder
	b.WriteString(m.st.warn.Render("Allow "+a.call.name+"?") + "\n")
	b.WriteString(argDetails(a.call.args, max(m.width-8, 20), 8))
	b.WriteString("\n\n")
	if a.reasoning {
		b.WriteString("Reason for denying (optional, Enter to send, Esc to go back):\n> " + string(a.reason) + "█")
	} else {
		b.WriteString(m.st.bold.Render("y") + " allow once   " + m.st.bold.Render("a") + " allow always   " +
			m.st.bold.Render("n") + " deny   " + m.st.dim.Render("esc cancel"))
	}
	return m.st.dialog.Width(max(m.width-2, 20)).Render(b.String())
}

// argDetails lists a call's arguments, each cut to a few lines: enough to
// judge an edit without flooding an 80x24 screen.
func argDetails(args string, width, lines int) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil || len(obj) == 0 {
		return abbreviate(args, width*2)
	}
	var b strings.Builder
	used := 0
	for _, k := range sortedKeys(obj) {
		v, ok := obj[k].(string)
		if !ok {
			raw, _ := json.Marshal(obj[k])
			v = string(raw)
		}
		vl := strings.Split(strings.TrimRight(v, "\n"), "\n")
		if used >= lines {
			b.WriteString("…\n")
			break
		}
		fmt.Fprintf(&b, "%s: ", k)
		room := min(len(vl), max(lines-used, 1), 3)
		for i := range room {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(abbreviate(vl[i], width-len(k)-2) + "\n")
		}
		if room < len(vl) {
			fmt.Fprintf(&b, "  … (%d more lines)\n", len(vl)-room)
		}
		used += room
	}
	return strings.TrimRight(b.String(), "\n")
}

func sortedKeys(m map[string]any) []string {
	// The paths first: they say what is touched.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		if strings.Contains(k, "path") || k == "command" {
			return 0
		}
		return 1
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return keys
}

// View draws the live area: the reply being streamed, the running tool
// calls, the dialog, the editor and the footer. Everything finished is
// above it, already printed.
func (m *model) View() tea.View {
	var parts []string
	if m.busy {
		if t := m.text.String(); t != "" {
			parts = append(parts, m.tail(wrap(t, m.width)))
		}
		if m.thought.Len() > 0 && m.text.Len() == 0 {
			parts = append(parts, m.st.dim.Render("∴ thinking…"))
		}
	}
	for _, c := range m.cards {
		parts = append(parts, m.renderCard(c, true))
	}
	if m.approval != nil {
		parts = append(parts, m.renderDialog(m.approval))
	}
	if m.busy {
		line := m.spin.View() + " working… " + m.st.dim.Render("(esc to stop)")
		if m.cancelling {
			line = m.spin.View() + " stopping…"
		}
		if m.status != "" {
			line += " " + m.st.dim.Render(m.status)
		}
		if n := len(m.queued); n > 0 {
			line += m.st.dim.Render(fmt.Sprintf(" · %d queued", n))
		}
		parts = append(parts, line)
	}
	if m.approval == nil {
		parts = append(parts, m.input.View())
	}
	parts = append(parts, m.footer())
	return tea.NewView(strings.Join(parts, "\n"))
}

// tail keeps the last lines of the streamed reply that fit: the live area
// cannot scroll, and the full reply is printed when it finishes.
func (m *model) tail(s string) string {
	room := max(m.height-8-len(m.cards)*2, 3)
	lines := strings.Split(s, "\n")
	if len(lines) > room {
		lines = lines[len(lines)-room:]
	}
	return strings.Join(lines, "\n")
}

func (m *model) footer() string {
	if m.armed {
		return m.st.warn.Render("Press Ctrl+C again to exit")
	}
	s := fmt.Sprintf("%s · %s mode · %s in / %s out tokens", m.cfg.Model, m.cfg.PermissionMode,
		count(m.usage.InputTokens), count(m.usage.OutputTokens))
	return m.st.dim.Render(abbreviate(s, max(m.width-1, 10)))
}

func count(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}
