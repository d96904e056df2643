package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
)

// approval is the open dialog.
type approval struct {
	call      callView
	reply     chan scheduler.Decision
	reasoning bool // typing the reason for a denial
	reason    []rune
	// diff is the change an edit or write_file call would make, as
	// unified lines; scroll is the first one shown.
	diff   []string
	path   string
	scroll int
}

// maxDiffFile bounds the file write_file's diff reads from disk.
const maxDiffFile = 1 << 20

func (m *model) newApproval(msg approvalMsg) *approval {
	a := &approval{call: msg.call, reply: msg.reply}
	var args struct {
		FilePath  string  `json:"file_path"`
		OldString *string `json:"old_string"`
		NewString *string `json:"new_string"`
		Content   *string `json:"content"`
	}
	if json.Unmarshal([]byte(msg.call.args), &args) != nil {
		return a
	}
	a.path = args.FilePath
	switch {
	case msg.call.name == "edit" && args.OldString != nil && args.NewString != nil:
		a.diff = lineDiff(*args.OldString, *args.NewString, 2)
	case msg.call.name == "write_file" && args.Content != nil:
		a.diff = lineDiff(m.readForDiff(args.FilePath), *args.Content, 2)
	}
	return a
}

// readForDiff returns a file's text as on disk ("" when it does not exist
// or is too big to diff).
func (m *model) readForDiff(path string) string {
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		if m.cfg.Root == "" {
			return ""
		}
		path = filepath.Join(m.cfg.Root, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDiffFile+1))
	if err != nil || len(b) > maxDiffFile {
		return ""
	}
	return string(b)
}

// dialogKey answers the open approval dialog.
func (m *model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	if a.reasoning {
		switch k.String() {
		case "enter":
			m.answer(scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: strings.TrimSpace(string(a.reason))})
		case "backspace":
			if len(a.reason) > 0 {
				a.reason = a.reason[:len(a.reason)-1]
			}
		case "space":
			a.reason = append(a.reason, ' ')
		default:
			a.reason = append(a.reason, []rune(k.Text)...)
		}
		return nil
	}
	room := m.diffRoom()
	switch k.String() {
	case "y", "enter":
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce})
	case "a":
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways})
	case "n":
		a.reasoning = true
	case "up", "k":
		a.scroll = max(a.scroll-1, 0)
	case "down", "j":
		a.scroll = min(a.scroll+1, max(len(a.diff)-room, 0))
	case "pgup":
		a.scroll = max(a.scroll-room, 0)
	case "pgdown", "space":
		a.scroll = min(a.scroll+room, max(len(a.diff)-room, 0))
	}
	return nil
}

func (m *model) answer(d scheduler.Decision) {
	m.approval.reply <- d
	m.approval = nil
}

// diffRoom is how many diff lines the dialog shows: what is left of the
// screen after the dialog's frame, the prompt line and the footer.
func (m *model) diffRoom() int { return max(m.height-12, 3) }

// renderDialog draws the approval dialog for a.
func (m *model) renderDialog(a *approval) string {
	var b strings.Builder
	w := max(m.width-6, 14)
	b.WriteString(m.st.warn.Render("Allow "+a.call.name+"?") + "\n")
	if a.diff != nil {
		b.WriteString("file_path: " + abbreviate(sanitize(a.path), w-11) + "\n")
		room := m.diffRoom()
		end := min(a.scroll+room, len(a.diff))
		if a.scroll > 0 {
			b.WriteString(m.st.dim.Render(fmt.Sprintf("↑ %d more lines", a.scroll)) + "\n")
		}
		for _, l := range a.diff[a.scroll:end] {
			b.WriteString(m.md.hl.diffLine(abbreviateKeep(sanitize(l), w)) + "\n")
		}
		if n := len(a.diff) - end; n > 0 {
			b.WriteString(m.st.dim.Render(fmt.Sprintf("↓ +%d more lines (↑/↓ to scroll)", n)) + "\n")
		}
		b.WriteString("\n")
	} else {
		b.WriteString(argDetails(sanitize(a.call.args), w, 8))
		b.WriteString("\n\n")
	}
	if a.reasoning {
		b.WriteString("Reason for denying (optional, Enter to send, Esc to go back):\n> " + string(a.reason) + "█")
	} else {
		b.WriteString(m.st.bold.Render("y") + " allow once   " + m.st.bold.Render("a") + " allow always   " +
			m.st.bold.Render("n") + " deny   " + m.st.dim.Render("esc cancel"))
	}
	return m.st.dialog.Width(max(m.width-2, 20)).Render(b.String())
}

// argSummary shows the argument a reader cares about most.
func argSummary(args string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return args
	}
	for _, k := range []string{"file_path", "path", "command", "pattern", "absolute_path", "dir_path", "url", "query"} {
		if v, ok := obj[k].(string); ok {
			return v
		}
	}
	return args
}

// argDetails lists a call's arguments, each cut to a few lines: enough to
// judge a call without flooding an 80x24 screen.
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
			b.WriteString(abbreviate(vl[i], max(width-len(k)-2, 10)) + "\n")
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
