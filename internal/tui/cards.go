package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/scheduler"
)

// Bounds of a card, so that one call cannot push the prompt off an 80x24
// screen: the live lines of a running command, the lines of an edit's diff.
const (
	cardLiveLines = 5
	cardDiffLines = 12
)

// updateCard applies a new snapshot of a call to its card.
func (m *model) updateCard(v callView) {
	for i, c := range m.cards {
		if c.id != v.id {
			continue
		}
		if v.args == "" {
			v.args = c.args
		}
		v.live, v.liveTotal, v.started, v.denied = c.live, c.liveTotal, c.started, c.denied
		if v.state.Terminal() && !c.state.Terminal() {
			m.callEnded(&v)
		}
		if v.state == scheduler.StateExecuting && v.started.IsZero() {
			v.started = time.Now()
		}
		m.cards[i] = &v
		return
	}
	if v.state.Terminal() {
		m.callEnded(&v)
	}
	m.cards = append(m.cards, &v)
}

// callEnded counts a finished call and takes a successful todo_write's
// list for the task block.
func (m *model) callEnded(c *callView) {
	m.stats.toolCalls++
	if c.state != scheduler.StateSuccess {
		m.stats.toolFailed++
		return
	}
	if c.name == "todo_write" {
		if t, ok := parseTodos(c.args); ok {
			m.todos = t
		}
	}
}

// dropPendingCards forgets calls the scheduler never saw: a retried
// stream's calls are not run.
func (m *model) dropPendingCards() {
	kept := m.cards[:0]
	for _, c := range m.cards {
		if c.state != "" {
			kept = append(kept, c)
		}
	}
	m.cards = kept
}

func (m *model) commitCards() tea.Cmd {
	var cmds []tea.Cmd
	for _, c := range m.cards {
		cmds = append(cmds, m.commit(m.renderCard(c, false)))
	}
	if len(m.cards) > 0 {
		m.lastCards = m.cards // Ctrl+O prints them again, unfolded
	}
	m.cards = nil
	return tea.Batch(cmds...)
}

// renderCard draws one tool call: a header with its state and duration,
// then the running command's last lines, an edit's diff, a short result,
// or the error in red.
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
	state := stateWords(c)
	d := c.duration
	if c.state == scheduler.StateExecuting && !c.started.IsZero() {
		d = time.Since(c.started).Truncate(time.Second)
	}
	label := stateLabel(state, d)
	room := max(m.width-len(c.name)-len(label)-6, 10)
	head := st.Render(icon) + " " + m.st.bold.Render(c.name) + " " + abbreviate(sanitize(callSubject(c.name, c.args)), room) +
		" " + m.st.dim.Render(label)
	var b strings.Builder
	// room's floor and the spinner's two columns can overflow a narrow screen.
	b.WriteString(ansi.Truncate(head, m.width-1, "…"))
	w := max(m.width-6, 10)
	if c.state == scheduler.StateExecuting {
		for _, l := range liveLines(c.live, cardLiveLines, w) {
			b.WriteString("\n  │ " + m.st.dim.Render(l))
		}
		return b.String()
	}
	if !c.state.Terminal() {
		return b.String()
	}
	if c.denied != "" && c.state == scheduler.StateCancelled {
		b.WriteString(m.deniedLines(c, w)) // cards_deny.go
		return b.String()
	}
	if c.state == scheduler.StateError {
		msg := sanitize(firstLine(c.output, w-2))
		if c.errorType != "" && c.errorType != scheduler.ErrorTypeExecutionDenied && c.errorType != scheduler.ErrorTypeExecution {
			// The type in words: "SHELL_TIMEOUT" says "shell timeout".
			msg = strings.ToLower(strings.ReplaceAll(c.errorType, "_", " ")) + ": " + msg
		}
		b.WriteString("\n  ⎿ " + m.st.err.Render(abbreviate(msg, w)))
		return b.String()
	}
	if c.state == scheduler.StateSuccess && isDiff(c.display) {
		n := cardDiffLines
		if m.expandOutput {
			n = expandedLines
		}
		for _, l := range m.diffLines(c.display, n, w) {
			b.WriteString("\n    " + l)
		}
		return b.String()
	}
	if m.outputLines(&b, c, w) {
		return b.String()
	}
	out := c.display
	if out == "" {
		out = c.output
	}
	if line := sanitize(firstLine(out, w)); line != "" {
		b.WriteString("\n  ⎿ " + m.st.dim.Render(line))
	}
	return b.String()
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

// isDiff reports whether a tool's display is a unified diff.
func isDiff(s string) bool {
	return strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "@@") || strings.Contains(s, "\n@@ ")
}

// diffLines draws a unified diff as renderDiff does, at most n lines of
// width columns.
func (m *model) diffLines(diff string, n, width int) []string {
	out, hidden := m.renderDiff(strings.Split(strings.TrimRight(diff, "\n"), "\n"), diffOpts{width: width, max: n})
	if hidden > 0 {
		out = append(out, m.st.dim.Render("… "+plural(hidden, "more line")+m.expandHint()))
	}
	return out
}

// abbreviateKeep cuts s to n columns keeping its spacing (code, diffs).
func abbreviateKeep(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 1)]) + "…"
	}
	return s
}

// todo is one item of the task list a todo_write call set.
type todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

func parseTodos(args string) ([]todo, bool) {
	var a struct {
		Todos []todo `json:"todos"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return nil, false
	}
	return a.Todos, true
}

// maxTodoLines bounds the task block above the editor.
const maxTodoLines = 6

// renderTodos draws the task list compactly: the items in progress and
// those left first when it does not fit. Nothing when every item is done
// and the agent is idle.
func (m *model) renderTodos() string {
	if len(m.todos) == 0 {
		return ""
	}
	done := 0
	for _, t := range m.todos {
		if t.Status == "completed" {
			done++
		}
	}
	if done == len(m.todos) && !m.busy {
		return ""
	}
	shown := m.todos
	if len(shown) > maxTodoLines {
		// Start at the first item not done, so what is next stays visible.
		first := 0
		for first < len(shown) && shown[first].Status == "completed" {
			first++
		}
		first = min(first, len(shown)-maxTodoLines)
		shown = shown[first : first+maxTodoLines]
	}
	lines := []string{m.st.bold.Render(fmt.Sprintf("Tasks %d/%d", done, len(m.todos)))}
	for _, t := range shown {
		text := abbreviate(sanitize(t.Content), max(m.width-6, 10))
		switch t.Status {
		case "completed":
			lines = append(lines, m.st.dim.Render("  ✓ "+text))
		case "in_progress":
			lines = append(lines, m.st.warn.Render("  ▸ "+text))
		default:
			lines = append(lines, "  ○ "+text)
		}
	}
	if n := len(m.todos) - len(shown); n > 0 {
		lines = append(lines, m.st.dim.Render(fmt.Sprintf("  … %d more", n)))
	}
	return strings.Join(lines, "\n")
}
