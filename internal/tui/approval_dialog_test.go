package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
)

// longCommand is 300 characters of a harmless-looking command with a
// destructive tail, as a model could hide one.
var longCommand = func() string {
	head := `find . -name '*.tmp' -type f -newer Makefile -not -path './vendor/*' -exec ls -l {} \;`
	tail := "; rm -rf ./build"
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len()+len(tail) < 300; i++ {
		fmt.Fprintf(&b, " && echo step-%02d", i)
	}
	s := b.String()
	return s[:300-len(tail)] + tail
}()

// dialogText returns the text inside the dialog's box, its lines joined
// by single spaces and runs of spaces squeezed: what a reader reads,
// whatever the wrapping.
func dialogText(view string) string {
	var parts []string
	for _, l := range strings.Split(view, "\n") {
		if in, ok := strings.CutPrefix(l, "│ "); ok {
			parts = append(parts, strings.TrimSuffix(strings.TrimRight(in, " "), "│"))
		}
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// openDialog opens the dialog for a call on an 80x24 screen.
func openDialog(t *testing.T, name string, args any, scope *AlwaysScope) (*harness, chan scheduler.Decision) {
	t.Helper()
	h := newHarness(t, nil, nil)
	h.m.keep = true
	h.m.busy, h.m.id = true, 1
	raw, _ := json.Marshal(args)
	reply := make(chan scheduler.Decision, 1)
	msg := approvalMsg{reply: reply, call: callView{id: "c1", name: name, args: string(raw), state: scheduler.StateAwaitingApproval}}
	if scope != nil {
		msg.scope, msg.hasScope = *scope, true
	}
	h.update(msg)
	return h, reply
}

func decision(t *testing.T, reply chan scheduler.Decision) scheduler.Decision {
	t.Helper()
	select {
	case d := <-reply:
		return d
	default:
		t.Fatal("the dialog did not answer")
		return scheduler.Decision{}
	}
}

// TestLongCommandIsShownWhole: a 300-character command is wrapped in the
// dialog at 80 columns, every character of it on screen, destructive tail
// included; nothing is cut with an ellipsis.
func TestLongCommandIsShownWhole(t *testing.T) {
	if len(longCommand) != 300 {
		t.Fatalf("the command is %d characters", len(longCommand))
	}
	h, _ := openDialog(t, "run_shell_command", map[string]string{"command": longCommand}, nil)
	v := h.view()
	if got := dialogText(v); !strings.Contains(got, "command: "+squeeze(longCommand)) {
		t.Fatalf("the dialog does not show the whole command:\n%s", v)
	}
	if strings.Contains(dialogBox(v), "…") || !strings.Contains(v, "rm -rf ./build") {
		t.Fatalf("the command is cut:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Fatalf("a line is %d columns wide: %q", w, l)
		}
	}
}

// TestTallCommandScrolls: a command taller than the room scrolls with the
// arrows, PgUp/PgDn, Home and End, says which lines are shown, and every
// line can be brought into view.
func TestTallCommandScrolls(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("echo line-%02d", i))
	}
	lines = append(lines, "rm -rf ./build")
	h, reply := openDialog(t, "run_shell_command", map[string]string{"command": strings.Join(lines, "\n")}, nil)
	seen := map[string]bool{}
	look := func() string {
		v := h.view()
		for _, l := range lines {
			if strings.Contains(v, l) {
				seen[l] = true
			}
		}
		return v
	}
	if v := look(); !strings.Contains(v, "lines 1–14 of 41 · ↑/↓ PgUp/PgDn to scroll") || strings.Contains(v, "rm -rf") {
		t.Fatalf("first page:\n%s", v)
	}
	h.press(tea.KeyDown, 0)
	if v := look(); !strings.Contains(v, "lines 2–15 of 41") {
		t.Fatalf("after Down:\n%s", v)
	}
	h.press(tea.KeyPgDown, 0)
	if v := look(); !strings.Contains(v, "lines 16–29 of 41") {
		t.Fatalf("after PgDn:\n%s", v)
	}
	h.press(tea.KeyPgDown, 0)
	h.press(tea.KeyPgDown, 0)
	if v := look(); !strings.Contains(v, "lines 28–41 of 41") || !strings.Contains(v, "rm -rf ./build") {
		t.Fatalf("at the end:\n%s", v)
	}
	h.press(tea.KeyPgUp, 0)
	if v := look(); !strings.Contains(v, "lines 14–27 of 41") {
		t.Fatalf("after PgUp:\n%s", v)
	}
	h.press(tea.KeyUp, 0)
	h.press(tea.KeyHome, 0)
	if v := look(); !strings.Contains(v, "lines 1–14 of 41") {
		t.Fatalf("after Home:\n%s", v)
	}
	h.press(tea.KeyEnd, 0)
	if v := look(); !strings.Contains(v, "lines 28–41 of 41") {
		t.Fatalf("after End:\n%s", v)
	}
	if len(seen) != len(lines) {
		t.Fatalf("%d of %d lines were ever shown", len(seen), len(lines))
	}
	if len(reply) != 0 || h.m.input.Value() != "" {
		t.Fatal("scrolling answered the dialog or typed into the editor")
	}
}

// TestLongDiffLineIsWrapped: a changed line wider than the dialog is
// wrapped, not cut.
func TestLongDiffLineIsWrapped(t *testing.T) {
	long := "x := " + strings.Repeat("word ", 30) + "END"
	h, _ := openDialog(t, "edit", map[string]string{"file_path": "a.go", "old_string": "x := 1\n", "new_string": long + "\n"}, nil)
	v := dialogBox(h.view())
	// The line and its continuations, exactly as wide as the box: glued
	// back together they must give the line.
	var glued string
	for _, l := range strings.Split(v, "\n") {
		in := []rune(l)
		if len(in) < 4 {
			continue
		}
		text := string(in[2 : len(in)-2])
		if t, ok := strings.CutPrefix(text, "1 + "); ok {
			glued += t
		} else if t, ok := strings.CutPrefix(text, "  ↪ "); ok {
			glued += t
		}
	}
	if strings.Contains(v, "…") || strings.TrimRight(glued, " ") != long {
		t.Fatalf("the long line is not wrapped whole: %q\n%s", glued, v)
	}
}

// dialogBox returns the lines of the dialog's box.
func dialogBox(view string) string {
	_, box, _ := strings.Cut(view, "╭")
	box, _, _ = strings.Cut(box, "╰")
	return box
}

const plan = "# Plan\n\n1. Add a **flag** to `cmd/ply`.\n2. Test it.\n\n- keep the old behaviour\n"

// TestPlanDialog: exit_plan_mode's plan is shown as rendered markdown,
// titled as a plan, with the plan's three choices and no "allow always";
// each choice sets the approval mode it names.
func TestPlanDialog(t *testing.T) {
	for _, tc := range []struct {
		keys     string
		wantMode string
		want     scheduler.Outcome
		reason   string
	}{
		{"a", "auto-edit", scheduler.OutcomeAllowOnce, ""},
		{"y", "default", scheduler.OutcomeAllowOnce, ""},
		{"nsmaller steps", "plan", scheduler.OutcomeDeny, "smaller steps"},
	} {
		t.Run(tc.keys, func(t *testing.T) {
			h, reply := openDialog(t, "exit_plan_mode", map[string]string{"plan": plan}, nil)
			mode := "plan"
			h.m.cfg.Session = &session{mode: func() string { return mode }, setMode: func(m string) error { mode = m; return nil }}
			_, v, _ := strings.Cut(h.view(), "╭") // the dialog, not the card above it
			for _, w := range []string{"Plan: approve it to leave plan mode?", "1. Add a flag to cmd/ply.", "• keep the old behaviour",
				"a approve, auto-accept edits", "y approve, ask before each edit", "n no, keep planning"} {
				if !strings.Contains(v, w) {
					t.Errorf("the plan dialog lacks %q", w)
				}
			}
			if strings.Contains(v, "allow always") || strings.Contains(v, "**") || strings.Contains(v, "# Plan") {
				t.Errorf("the plan dialog offers allow always or shows raw markdown:\n%s", v)
			}
			h.typeText(tc.keys)
			if tc.reason != "" {
				if !strings.Contains(h.view(), "What should change in the plan?") {
					t.Fatalf("no reason prompt:\n%s", h.view())
				}
				h.press(tea.KeyEnter, 0)
			}
			d := decision(t, reply)
			if d.Outcome != tc.want || d.Reason != tc.reason || mode != tc.wantMode {
				t.Fatalf("answer %+v, mode %q; want outcome %d, reason %q, mode %q", d, mode, tc.want, tc.reason, tc.wantMode)
			}
		})
	}
}

// TestAllowAlwaysSaysItsScope: the dialog names what "allow always"
// covers, offers to save it to either settings file, and saving hands the
// rules to SaveRules before allowing.
func TestAllowAlwaysSaysItsScope(t *testing.T) {
	scope := &AlwaysScope{Rules: []string{"Bash(git status:*)"}, Desc: "commands starting with `git status`"}
	type saved struct {
		path  string
		rules []string
	}
	for _, tc := range []struct {
		key      string
		wantPath string
		fail     bool
	}{{"a", "", false}, {"p", "/w/.ply/settings.json", false}, {"u", "/home/me/.ply/settings.json", false}, {"p", "/w/.ply/settings.json", true}} {
		t.Run(fmt.Sprintf("%s fail=%v", tc.key, tc.fail), func(t *testing.T) {
			h, reply := openDialog(t, "run_shell_command", map[string]string{"command": "git status -s"}, scope)
			var got []saved
			h.m.cfg.Root = "/w"
			files := map[string]string{"project": "/w/.ply/settings.json", "user": "/home/me/.ply/settings.json"}
			h.m.cfg.Session = struct {
				bare
				AlwaysScoper
			}{bare{}, scoper{files: files, save: func(path string, rules []string) error {
				got = append(got, saved{path, rules})
				if tc.fail {
					return errors.New("settings: the file has comments")
				}
				return nil
			}}}
			v := h.view()
			for _, w := range []string{"a allow always: commands starting with `git status`, this session",
				"p … and save to project settings (.ply/settings.json)", "u … and save to user settings (/home/me/.ply/settings.json)"} {
				if !strings.Contains(v, w) {
					t.Fatalf("the dialog lacks %q:\n%s", w, v)
				}
			}
			h.typeText(tc.key)
			if d := decision(t, reply); d.Outcome != scheduler.OutcomeAllowAlways {
				t.Fatalf("answer %+v", d)
			}
			if tc.wantPath == "" {
				if len(got) != 0 {
					t.Fatalf("a saved %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].path != tc.wantPath || strings.Join(got[0].rules, ",") != "Bash(git status:*)" {
				t.Fatalf("saved %v", got)
			}
			p := h.printed()
			if tc.fail != strings.Contains(p, "the file has comments (allowed for this session only)") || tc.fail == strings.Contains(p, "saved Bash(git status:*) to") {
				t.Fatalf("after saving (failing %v) the conversation says:\n%s", tc.fail, p)
			}
		})
	}
}

// TestNothingToRemember: when no rule can cover a call (a command with
// words known only at run time), "allow always" is not offered and its
// keys do nothing.
func TestNothingToRemember(t *testing.T) {
	h, reply := openDialog(t, "run_shell_command", map[string]string{"command": "$(echo rm) x"}, &AlwaysScope{})
	files := map[string]string{"project": "/w/.ply/settings.json", "user": "/u/settings.json"}
	h.m.cfg.Session = struct {
		bare
		AlwaysScoper
	}{bare{}, scoper{files: files, save: func(string, []string) error { t.Error("saved"); return nil }}}
	if v := h.view(); strings.Contains(v, "allow always") || strings.Contains(v, "save to") {
		t.Fatalf("allow always offered:\n%s", v)
	}
	h.typeText("apu")
	if len(reply) != 0 || h.m.approval == nil {
		t.Fatal("a hidden choice answered the dialog")
	}
	h.typeText("y")
	if d := decision(t, reply); d.Outcome != scheduler.OutcomeAllowOnce {
		t.Fatalf("answer %+v", d)
	}
}

// TestDiffDialogShowsOtherArguments: an edit's diff comes with the
// arguments the diff does not show, such as replace_all.
func TestDiffDialogShowsOtherArguments(t *testing.T) {
	h, _ := openDialog(t, "edit", map[string]any{"file_path": "a.go", "old_string": "x", "new_string": "y", "replace_all": true}, nil)
	box := dialogBox(h.view())
	if !strings.Contains(box, "│ replace_all: true") || !strings.Contains(box, "│ 1 - x") || strings.Contains(box, "old_string") {
		t.Fatalf("the dialog does not say replace_all:\n%s", box)
	}
}

// TestEscalationShowsJustification: a command that asks to run outside
// the sandbox shows that request and the model's justification right
// under the command.
func TestEscalationShowsJustification(t *testing.T) {
	h, _ := openDialog(t, "run_shell_command", map[string]any{"command": "go mod download", "description": "fetch",
		"run_outside_sandbox": true, "justification": "the build needs modules the cache lacks"}, nil)
	got := dialogText(h.view())
	i, j, k := strings.Index(got, "command: go mod download"), strings.Index(got, "justification: the build needs modules the cache lacks"), strings.Index(got, "description: fetch")
	if i < 0 || j < 0 || !strings.Contains(got, "run_outside_sandbox: true") || !(i < j && j < k) {
		t.Fatalf("the dialog does not show the request and its justification under the command:\n%s", got)
	}
}
