package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// readable returns the text inside the dialog's box on a captured screen,
// lines joined by single spaces: what a reader reads, whatever the
// wrapping.
func readable(screen string) string {
	var parts []string
	for _, l := range strings.Split(screen, "\n") {
		if in, ok := strings.CutPrefix(l, "│ "); ok {
			parts = append(parts, strings.TrimSuffix(strings.TrimRight(in, " "), "│"))
		}
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// TestTmuxLongCommandReadable: a 300-character command whose end deletes
// a directory is shown whole in the dialog of an 80x24 terminal, tail
// included. Denied, it does not run; the next command's "allow always" is
// saved to the project's settings from the dialog.
func TestTmuxLongCommandReadable(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	const tail = "; rm -rf ./build"
	var b strings.Builder
	b.WriteString(`find . -name '*.tmp' -type f -newer Makefile -not -path './vendor/*' -exec ls -l {} \;`)
	for i := 0; b.Len()+len(tail) < 300; i++ {
		fmt.Fprintf(&b, " && echo step-%02d", i)
	}
	command := b.String()[:300-len(tail)] + tail
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "run_shell_command", args(map[string]any{"command": command}))},
		fp.Turn{fp.ToolCall("call_2", "run_shell_command", args(map[string]any{"command": "touch made-by-ply"}))},
		fp.Turn{fp.Text("all done")},
	)
	x := startPly(t, bin, dir, srv, 80, 24, []string{"NO_COLOR=1"}, "--approval-mode", "default")
	x.waitFor("test-model · default mode")
	x.run("send-keys", "-t", "ply", "-l", "clean up")
	x.run("send-keys", "-t", "ply", "Enter")
	s := x.waitFor("Allow run_shell_command?")
	if testing.Verbose() {
		t.Logf("dialog:\n%s", s)
	}
	if !strings.Contains(s, "rm -rf ./build") || !strings.Contains(readable(s), "command: "+strings.Join(strings.Fields(command), " ")) {
		t.Fatalf("the whole command is not readable at 80 columns:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "-l", "n")
	x.run("send-keys", "-t", "ply", "Enter")

	s = x.waitFor("`touch` with paths inside the workspace")
	for _, want := range []string{"a allow always: `touch` with paths inside the workspace, this session", "p … and save to project settings (.ply/settings.json)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	x.run("send-keys", "-t", "ply", "-l", "p")
	x.waitFor("all done")
	if _, err := os.Stat(filepath.Join(dir, "build")); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-by-ply")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	saved, _ := os.ReadFile(filepath.Join(dir, ".ply", "settings.json"))
	if !strings.Contains(string(saved), `"Bash(@workspace touch:*)"`) {
		t.Fatalf("the rule was not saved: %s", saved)
	}
}

// TestTmuxPlanApprovedWithAutoEdits: in plan mode, exit_plan_mode's plan
// is shown rendered in full with the plan's choices; "approve, auto-accept
// edits" switches to auto-edit, so the edit that follows runs unasked.
func TestTmuxPlanApprovedWithAutoEdits(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("status: draft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := "## Mark the notes final\n\n1. Change **status** in `notes.txt`.\n2. Nothing else.\n"
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_p", "exit_plan_mode", args(map[string]any{"plan": plan}))},
		fp.Turn{fp.ToolCall("call_e", "edit", args(map[string]any{"file_path": file, "old_string": "status: draft", "new_string": "status: final"}))},
		fp.Turn{fp.Text("finished the plan")},
	)
	x := startPly(t, bin, dir, srv, 80, 24, []string{"NO_COLOR=1"}, "--approval-mode", "plan")
	x.waitFor("test-model · plan mode")
	x.run("send-keys", "-t", "ply", "-l", "mark the notes final")
	x.run("send-keys", "-t", "ply", "Enter")
	s := x.waitFor("Plan: approve it to leave plan mode?")
	_, box, _ := strings.Cut(s, "╭")
	for _, want := range []string{"Mark the notes final", "1. Change status in notes.txt.", "2. Nothing else.",
		"a approve, auto-accept edits", "y approve, ask before each edit", "n no, keep planning"} {
		if !strings.Contains(box, want) {
			t.Errorf("the plan dialog lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(box, "allow always") {
		t.Errorf("the plan dialog offers allow always:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "-l", "a")
	s = x.waitFor("finished the plan")
	if strings.Contains(s, "Allow edit?") {
		t.Errorf("the edit was asked about after auto-accepted edits:\n%s", s)
	}
	x.waitFor("auto-edit mode")
	if got, _ := os.ReadFile(file); string(got) != "status: final\n" {
		t.Fatalf("the edit did not run: %q", got)
	}
}

// TestTmuxAutoEscalationAsks: in auto mode a command runs unasked in the
// sandbox, and one that asks to run outside it opens the dialog with its
// justification; approved, it runs unconfined.
func TestTmuxAutoEscalationAsks(t *testing.T) {
	bin := buildPly(t)
	dir := t.TempDir()
	outside := t.TempDir()
	marker := filepath.Join(outside, "ran-outside")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "run_shell_command", args(map[string]any{"command": "touch made-in-sandbox"}))},
		fp.Turn{fp.ToolCall("call_2", "run_shell_command", args(map[string]any{"command": "touch " + marker,
			"run_outside_sandbox": true, "justification": "the marker lives outside the workspace"}))},
		fp.Turn{fp.Text("all done")},
	)
	x := startPly(t, bin, dir, srv, 100, 30, []string{"NO_COLOR=1"}, "--approval-mode", "auto")
	s := x.waitFor("test-model · auto mode")
	if strings.Contains(s, "no sandbox") || strings.Contains(s, "cannot provide") {
		t.Skipf("this kernel has no sandbox for auto mode:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "-l", "go")
	x.run("send-keys", "-t", "ply", "Enter")
	s = x.waitFor("Allow run_shell_command?")
	if r := readable(s); !strings.Contains(r, "justification: the marker lives outside the workspace") || !strings.Contains(r, "run_outside_sandbox: true") {
		t.Fatalf("the dialog does not show the request and its justification:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-in-sandbox")); err != nil {
		t.Errorf("the sandboxed command did not run unasked: %v", err)
	}
	x.run("send-keys", "-t", "ply", "-l", "y")
	x.waitFor("all done")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run outside the sandbox: %v", err)
	}
}
