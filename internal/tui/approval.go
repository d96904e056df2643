package tui

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// AlwaysScope is what answering "allow always" to one call allows: the
// permission rules it adds for the session, and a phrase saying which
// calls they cover ("commands starting with `git status`").
type AlwaysScope struct {
	Rules []string
	Desc  string
}

// approval is the open dialog. Everything the call would do is in its
// body, wrapped to the screen's width and scrolled when taller than the
// room: a reader approves only what they could read.
type approval struct {
	call      callView
	reply     chan scheduler.Decision
	reasoning bool // typing the reason for a denial
	reason    []rune
	// scope is what "allow always" covers; hasScope false means the UI
	// was not told, and the option then names the whole tool.
	scope    AlwaysScope
	hasScope bool
	// diff is the change an edit or write_file call would make, as
	// unified lines; plan is exit_plan_mode's plan, in markdown.
	diff []string
	path string
	plan string
	// from names who asks, when not the main loop.
	from string
	// scroll is the first body line shown.
	scroll int
	// body caches the body's lines for bodyWidth.
	body      []string
	bodyWidth int

	// diffShift numbers an edit's diff as the lines of its file.
	diffShift int
}

// maxDiffFile bounds the file write_file's diff reads from disk.
const maxDiffFile = 1 << 20

func (m *model) newApproval(msg approvalMsg) *approval {
	a := &approval{call: msg.call, reply: msg.reply, scope: msg.scope, hasScope: msg.hasScope}
	var args struct {
		FilePath  string  `json:"file_path"`
		OldString *string `json:"old_string"`
		NewString *string `json:"new_string"`
		Content   *string `json:"content"`
		Plan      *string `json:"plan"`
	}
	if json.Unmarshal([]byte(msg.call.args), &args) != nil {
		return a
	}
	a.path = args.FilePath
	switch {
	case msg.call.name == tools.ExitPlanModeName && args.Plan != nil:
		a.plan = *args.Plan
	case msg.call.name == "edit" && args.OldString != nil && args.NewString != nil:
		a.diff = lineDiff(*args.OldString, *args.NewString, 2)
		a.diffShift = m.lineOf(args.FilePath, *args.OldString) // render_diff.go
	case msg.call.name == "write_file" && args.Content != nil:
		a.diff = lineDiff(m.readForDiff(args.FilePath), *args.Content, 2)
	}
	return a
}

// isPlan reports whether the dialog asks to approve a plan.
func (a *approval) isPlan() bool { return a.call.name == tools.ExitPlanModeName }

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

// dialogKey answers the open approval dialog, or scrolls its body.
func (m *model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	if a.reasoning {
		switch k.String() {
		case "enter":
			reason := strings.TrimSpace(string(a.reason))
			m.noteDenial(a.call.id, reason) // cards_deny.go
			m.answer(scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: reason})
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
	if m.scrollDialog(k.String()) {
		return nil
	}
	if a.isPlan() {
		return m.planKey(k.String())
	}
	switch k.String() {
	case "y", "enter":
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce})
	case "a":
		if m.alwaysOffered(a) {
			m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways})
		}
	case "p", "u":
		return m.allowAndSave(k.String() == "p")
	case "n":
		a.reasoning = true
	}
	return nil
}

// planKey answers the plan dialog. Approving sets the mode the user chose
// before the call is let through, so that the calls after it in the same
// batch already meet the new mode.
func (m *model) planKey(key string) tea.Cmd {
	var cmd tea.Cmd
	switch key {
	case "a":
		cmd = m.setModeIfAble("auto-edit")
	case "y", "enter":
		cmd = m.setModeIfAble("default")
	case "n":
		m.approval.reasoning = true
		return nil
	default:
		return nil
	}
	m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce})
	return cmd
}

// setModeIfAble switches the approval mode where the session lets the UI.
func (m *model) setModeIfAble(name string) tea.Cmd {
	if m.modes() == nil {
		return nil
	}
	return m.setMode(name)
}

// scrollDialog moves the dialog's body for a scrolling key and reports
// whether k was one.
func (m *model) scrollDialog(k string) bool {
	a := m.approval
	room := m.bodyRoom(a)
	last := max(len(m.dialogBody(a))-room, 0)
	switch k {
	case "up", "k":
		a.scroll--
	case "down", "j":
		a.scroll++
	case "pgup":
		a.scroll -= room
	case "pgdown", "space":
		a.scroll += room
	case "home":
		a.scroll = 0
	case "end":
		a.scroll = last
	default:
		return false
	}
	a.scroll = min(max(a.scroll, 0), last)
	return true
}

func (m *model) answer(d scheduler.Decision) {
	m.approval.reply <- d
	m.approval = nil
	m.nextApproval()
}
