package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/rewind"
)

// RewindPoint is one prompt /rewind offers to go back to; RewindResult
// is what a rewind did (its Prompt goes back in the input box).
type (
	RewindPoint  = rewind.Point
	RewindResult = rewind.Result
)

// Rewinder puts the session back to before one of its prompts (/rewind,
// Esc twice): Rewinds lists the prompts, oldest first; Rewind puts the
// files (code) and/or the conversation back to before prompt n, or undoes
// the last rewind (n = 0); CanUndoRewind says whether there is one.
type Rewinder interface {
	Rewinds() ([]RewindPoint, error)
	Rewind(n int, code, conversation bool) (RewindResult, error)
	CanUndoRewind() bool
}

func (m *model) rewinder() Rewinder {
	r, _ := m.cfg.Session.(Rewinder)
	return r
}

// rewindOptions are the choices once a prompt is picked, in order.
var rewindOptions = []struct {
	label      string
	code, conv bool
}{
	{"restore code and conversation", true, true},
	{"restore code only", true, false},
	{"restore conversation only", false, true},
	{"cancel", false, false},
}

// rewindPicker is the state of /rewind: the list (newest first, the undo
// entry on top when there is one), then the options for the chosen prompt.
type rewindPicker struct {
	points []RewindPoint // newest first
	undo   bool          // items[0] is "undo the last rewind"
	sel    int
	chosen *RewindPoint // set once a prompt is picked: sel is then an option
}

func (m *model) openRewind() tea.Cmd {
	rw := m.rewinder()
	if rw == nil {
		return m.unavailable("/rewind")
	}
	list, err := rw.Rewinds()
	if err != nil {
		return m.commit(m.st.err.Render("✗ listing the prompts: " + err.Error()))
	}
	rp := &rewindPicker{undo: rw.CanUndoRewind()}
	for i := len(list) - 1; i >= 0; i-- {
		rp.points = append(rp.points, list[i])
	}
	if len(rp.points) == 0 && !rp.undo {
		return m.commit(m.st.dim.Render("no prompts to rewind to in this session"))
	}
	if rp.undo && len(rp.points) > 0 {
		rp.sel = 1 // the newest prompt; the undo entry is one up
	}
	m.picker = &picker{rewind: rp}
	return nil
}

func (rp *rewindPicker) items() int {
	if rp.chosen != nil {
		return len(rewindOptions)
	}
	n := len(rp.points)
	if rp.undo {
		n++
	}
	return n
}

func (m *model) rewindKey(k tea.KeyPressMsg) tea.Cmd {
	rp := m.picker.rewind
	switch k.String() {
	case "up", "k":
		rp.sel = max(rp.sel-1, 0)
	case "down", "j":
		rp.sel = min(rp.sel+1, rp.items()-1)
	case "enter":
		switch {
		case rp.chosen != nil:
			opt := rewindOptions[rp.sel]
			m.picker = nil
			if !opt.code && !opt.conv {
				return nil
			}
			return m.rewind(rp.chosen.N, opt.code, opt.conv)
		case rp.undo && rp.sel == 0:
			m.picker = nil
			return m.rewind(0, true, true)
		default:
			i := rp.sel
			if rp.undo {
				i--
			}
			rp.chosen, rp.sel = &rp.points[i], 0
		}
	}
	return nil
}

// rewind runs the rewind (n = 0 undoes the last one) and shows the result.
func (m *model) rewind(n int, code, conv bool) tea.Cmd {
	if m.busy || m.compacting {
		return m.notIdle("/rewind")
	}
	rw := m.rewinder()
	if rw == nil {
		return m.unavailable("/rewind")
	}
	res, err := rw.Rewind(n, code, conv)
	if err != nil {
		return m.commit(m.st.err.Render("✗ rewind: " + err.Error()))
	}
	if res.History != nil {
		// The conversation above stays on screen, marked: what follows
		// goes on from the point rewound to.
		m.todos, m.lastThought, m.retryable = nil, "", false
		m.refreshContext()
	}
	if res.Prompt != "" {
		m.input.SetValue(markTabs(res.Prompt))
	}
	return m.commit(m.st.dim.Render("⏪ " + res.Note))
}

func (m *model) renderRewind() string {
	rp := m.picker.rewind
	var b strings.Builder
	if rp.chosen != nil {
		b.WriteString(ansi.Truncate(m.st.warn.Render(fmt.Sprintf("Rewind to before prompt %d", rp.chosen.N))+
			m.st.dim.Render("  ↑/↓ choose · Enter confirm · Esc close"), m.width-1, "…"))
		b.WriteString("\n  " + m.st.dim.Render(abbreviate(sanitize(rp.chosen.Prompt), max(m.width-4, 10))))
		for i, o := range rewindOptions {
			b.WriteString("\n" + m.pickerLine(i == rp.sel, o.label))
		}
		return b.String()
	}
	b.WriteString(ansi.Truncate(m.st.warn.Render("Rewind")+m.st.dim.Render("  ↑/↓ choose · Enter pick · Esc close"), m.width-1, "…"))
	var lines []string
	if rp.undo {
		lines = append(lines, "undo the last rewind")
	}
	for _, p := range rp.points {
		changed := ""
		if since := p.Since(); since != "" {
			changed = "  (" + since + ")"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(p.Prompt), "\n")
		lines = append(lines, fmt.Sprintf("%3d  %s  %s%s", p.N, p.Time.Local().Format("01-02 15:04"), sanitize(first), changed))
	}
	room := max(m.height-6, 3)
	first := max(0, min(rp.sel-room/2, len(lines)-room))
	for i := first; i < min(first+room, len(lines)); i++ {
		b.WriteString("\n" + m.pickerLine(i == rp.sel, abbreviate(lines[i], max(m.width-4, 10))))
	}
	return b.String()
}

func (m *model) pickerLine(selected bool, line string) string {
	if selected {
		return m.st.user.Render("› ") + m.st.bold.Render(line)
	}
	return "  " + line
}
