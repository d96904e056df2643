package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
)

// How much of a finished call's output its card shows: the last lines of
// a command, folded; every line up to expandedLines once Ctrl+O unfolds
// output (the terminal's scrollback is then the pager).
const (
	cardTailLines = 4
	expandedLines = 500
)

// shellTool is the tool whose output a folded card keeps the end of.
const shellTool = "run_shell_command"

// stateWords says a call's state in plain words for its card.
func stateWords(c *callView) string {
	switch c.state {
	case "":
		return "waiting"
	case scheduler.StateValidating:
		return "checking"
	case scheduler.StateAwaitingApproval:
		return "waiting for approval"
	case scheduler.StateScheduled:
		return "queued"
	case scheduler.StateExecuting:
		return "running"
	case scheduler.StateSuccess:
		return "done"
	case scheduler.StateError:
		if c.errorType == scheduler.ErrorTypeExecutionDenied {
			return "denied"
		}
		return "failed"
	case scheduler.StateCancelled:
		if strings.HasPrefix(c.output, "The user denied") {
			return "denied"
		}
		return "cancelled"
	}
	return strings.ReplaceAll(string(c.state), "_", " ")
}

// plural says n things: "1 more line", "3 more lines".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func (m *model) expandHint() string {
	if m.expandOutput {
		return ""
	}
	return " · ctrl+o to show"
}

// outputBody is the text a finished call printed: a command's output
// without the lines ply adds for the model, or the tool's output.
func outputBody(c *callView) string {
	out := c.output
	if c.name == shellTool && strings.HasPrefix(out, "Command: ") {
		i := strings.Index(out, "\nOutput: ")
		j := strings.LastIndex(out, "\nExit code: ")
		if i >= 0 && j > i {
			out = out[i+len("\nOutput: ") : j]
		}
		if out == "(empty)" {
			return ""
		}
	}
	if out == "" {
		out = c.live
	}
	return strings.TrimRight(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
}

// outputLines writes a successful call's output into its card: a
// command's last lines when folded, any call's whole output (bounded)
// when unfolded, then the display line and what was left out. It reports
// false when it wrote nothing and the card takes its one-line summary.
func (m *model) outputLines(b *strings.Builder, c *callView, width int) bool {
	if c.state != scheduler.StateSuccess || (c.name != shellTool && !m.expandOutput) {
		return false
	}
	body := outputBody(c)
	if body == "" || (c.name != shellTool && !strings.Contains(body, "\n")) {
		return false
	}
	lines := strings.Split(body, "\n")
	shown, hidden := lines, 0
	if !m.expandOutput && len(lines) > cardTailLines {
		shown, hidden = lines[len(lines)-cardTailLines:], len(lines)-cardTailLines
	} else if len(lines) > expandedLines {
		shown, hidden = lines[:expandedLines], len(lines)-expandedLines
	}
	for _, l := range shown {
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:] // a progress bar redrawn in place: its last state
		}
		b.WriteString("\n  │ " + m.st.dim.Render(abbreviateKeep(sanitize(l), width)))
	}
	tail := c.display
	if hidden > 0 {
		if tail != "" {
			tail += " · "
		}
		tail += plural(hidden, "more line") + m.expandHint()
	}
	if tail = sanitize(tail); tail != "" {
		b.WriteString("\n  ⎿ " + m.st.dim.Render(tail))
	}
	return true
}

// toggleOutput unfolds or folds tool output (Ctrl+O). Unfolding also
// prints the latest finished cards again in full: what is in the
// scrollback cannot be unfolded in place.
func (m *model) toggleOutput() tea.Cmd {
	m.expandOutput = !m.expandOutput
	if !m.expandOutput {
		return m.commit(m.st.dim.Render("tool output folded · ctrl+o to unfold"))
	}
	var blocks []string
	for _, c := range m.lastCards {
		blocks = append(blocks, m.renderCard(c, false))
	}
	if len(blocks) == 0 {
		return m.commit(m.st.dim.Render("tool output unfolded · ctrl+o to fold"))
	}
	return m.commit(m.st.dim.Render("full output (ctrl+o to fold):") + "\n" + strings.Join(blocks, "\n"))
}

// fieldSummary says a tool's arguments in plain words when none of them
// is the one a reader looks for: a task list's length, or each field's
// value, a list's length, in name order.
func fieldSummary(obj map[string]any) string {
	if t, ok := obj["todos"].([]any); ok {
		return plural(len(t), "todo")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		switch v := obj[k].(type) {
		case string:
			first, _, _ := strings.Cut(strings.TrimSpace(v), "\n")
			parts = append(parts, k+": "+first)
		case []any:
			parts = append(parts, k+": "+plural(len(v), "item"))
		case map[string]any:
			parts = append(parts, k+": …")
		case nil:
		default:
			parts = append(parts, fmt.Sprint(k, " ", v))
		}
	}
	return strings.Join(parts, ", ")
}
