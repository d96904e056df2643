package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// dialogWidth is the width of the dialog's text: the screen less the
// box's border and padding.
func (m *model) dialogWidth() int { return max(m.width-6, 14) }

// dialogBody returns the dialog's body, wrapped to the dialog's width:
// the plan, the diff with its file, or every argument in full. Nothing is
// cut; what does not fit the room scrolls.
func (m *model) dialogBody(a *approval) []string {
	w := m.dialogWidth()
	if a.body != nil && a.bodyWidth == w {
		return a.body
	}
	var out []string
	switch {
	case a.plan != "":
		out = strings.Split(m.md.render(a.plan, w), "\n")
	case a.diff != nil:
		out = wrapIndent("file_path: ", sanitize(a.path), w)
		out = append(out, otherArgLines(a.call.args, w)...)
		rows, _ := m.renderDiff(a.diff, diffOpts{width: w, wrap: true, shift: a.diffShift}) // render_diff.go
		out = append(out, rows...)
	default:
		out = argLines(a.call.args, w)
	}
	a.body, a.bodyWidth = out, w
	return out
}

// diffStyle is the style diffLine gives a line starting with marker.
func (h highlighter) diffStyle(marker string) lipgloss.Style {
	switch marker {
	case "+":
		return h.add
	case "-":
		return h.del
	}
	return h.plain
}

// argLines lists a call's arguments in full, paths and the command first,
// each wrapped to width: "key: value", a value's later lines indented.
func argLines(args string, width int) []string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil || len(obj) == 0 {
		var out []string
		for _, l := range strings.Split(args, "\n") {
			out = append(out, wrapIndent("", sanitize(l), width)...)
		}
		return out
	}
	var out []string
	for _, k := range sortedKeys(obj) {
		v, ok := obj[k].(string)
		if !ok {
			raw, _ := json.Marshal(obj[k])
			v = string(raw)
		}
		for i, l := range strings.Split(strings.TrimRight(v, "\n"), "\n") {
			lead := "  "
			if i == 0 {
				lead = sanitize(k) + ": "
			}
			out = append(out, wrapIndent(lead, sanitize(l), width)...)
		}
	}
	return out
}

// otherArgLines lists the arguments of an edit or write_file call that
// its diff does not show (replace_all, say).
func otherArgLines(args string, width int) []string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return nil
	}
	for _, k := range []string{"file_path", "old_string", "new_string", "content"} {
		delete(obj, k)
	}
	if len(obj) == 0 {
		return nil
	}
	rest, _ := json.Marshal(obj)
	return argLines(string(rest), width)
}

// sortedKeys orders arguments for reading: paths and the command first,
// as they say what is touched, then the rest by name.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		switch {
		case strings.Contains(k, "path") || k == "command":
			return 0
		case k == "run_outside_sandbox" || k == "justification":
			return 1 // why a command asks to leave the sandbox
		}
		return 2
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return keys
}

// argSummary shows the argument a reader cares about most.
func argSummary(args string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return args
	}
	for _, k := range []string{"file_path", "path", "command", "pattern", "absolute_path", "dir_path", "url", "query", "description"} {
		if v, ok := obj[k].(string); ok {
			return v
		}
	}
	return fieldSummary(obj)
}

// bodyRoom is how many body lines the dialog shows: what the screen has
// left after the dialog's border, title, scroll line and choices, and the
// working line and footer under it.
func (m *model) bodyRoom(a *approval) int {
	return max(m.height-2-1-1-1-len(m.choiceLines(a))-2, 3)
}

// choiceLines returns the answer lines wrapped to the dialog's width.
func (m *model) choiceLines(a *approval) []string {
	var out []string
	for _, c := range m.dialogChoices(a) {
		out = append(out, strings.Split(ansi.Wrap(c, m.dialogWidth(), ""), "\n")...)
	}
	return out
}

// dialogChoices returns the dialog's answer lines.
func (m *model) dialogChoices(a *approval) []string {
	key := m.st.bold.Render
	if a.reasoning {
		prompt := "Reason for denying (optional, Enter to send, Esc to go back):"
		if a.isPlan() {
			prompt = "What should change in the plan? (optional, Enter to send, Esc to go back):"
		}
		return []string{prompt, "> " + string(a.reason) + "█"}
	}
	if a.isPlan() {
		return []string{
			key("a") + " approve, auto-accept edits",
			key("y") + " approve, ask before each edit",
			key("n") + " no, keep planning   " + m.st.dim.Render("esc cancel"),
		}
	}
	out := []string{key("y") + " allow once"}
	if m.alwaysOffered(a) {
		out = append(out, key("a")+" allow always: "+m.alwaysText(a)+", this session")
		if p := m.settingsFile("project"); m.saveOffered(a, p) {
			out = append(out, key("p")+" … and save to project settings ("+m.shortPath(p)+")")
		}
		if p := m.settingsFile("user"); m.saveOffered(a, p) {
			out = append(out, key("u")+" … and save to user settings ("+m.shortPath(p)+")")
		}
	}
	return append(out, key("n")+" deny   "+m.st.dim.Render("esc cancel"))
}

// renderDialog draws the approval dialog for a.
func (m *model) renderDialog(a *approval) string {
	w := m.dialogWidth()
	var b strings.Builder
	title := "Allow " + sanitize(a.call.name) + "?"
	if a.isPlan() {
		title = "Plan: approve it to leave plan mode?"
	}
	if a.from != "" {
		title = sanitize(a.from) + " asks: " + title
	}
	b.WriteString(m.st.warn.Render(title) + "\n")
	body, room := m.dialogBody(a), m.bodyRoom(a)
	a.scroll = min(a.scroll, max(len(body)-room, 0))
	end := min(a.scroll+room, len(body))
	for _, l := range body[a.scroll:end] {
		b.WriteString(l + "\n")
	}
	if len(body) > room {
		b.WriteString(m.st.dim.Render(abbreviate(fmt.Sprintf("lines %d–%d of %d · ↑/↓ PgUp/PgDn to scroll", a.scroll+1, end, len(body)), w)) + "\n")
	}
	b.WriteString("\n")
	b.WriteString(strings.Join(m.choiceLines(a), "\n"))
	return m.st.dialog.Width(max(m.width-2, 20)).Render(b.String())
}
