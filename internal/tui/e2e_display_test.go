package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxToolDisplay: a search's card names its pattern and folder; an
// edit's approval shows its diff numbered as the file's lines; a denial's
// typed reason is on the card in full, broken between words; /diff
// numbers the lines the same way; a !command leaves its result and no
// progress line. At 80 and 120 columns.
func TestTmuxToolDisplay(t *testing.T) {
	t.Parallel()
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) { t.Parallel(); testTmuxToolDisplay(t, w) })
	}
}

func testTmuxToolDisplay(t *testing.T, w int) {
	bin := buildPly(t)
	dir := t.TempDir()
	var body strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&body, "value%d := %d\n", i, i)
	}
	file := filepath.Join(dir, "values.go")
	if err := os.WriteFile(file, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	reason := "please keep the original numbering because the generated tables depend on it staying exactly the same"
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_g", "grep_search", args(map[string]any{"pattern": "countValue"}))},
		fp.Turn{fp.ToolCall("call_e", "edit", args(map[string]any{"file_path": file, "old_string": "value27 := 27\n", "new_string": "value27 := 2700\n"}))},
		fp.Turn{fp.Text("Understood, leaving it.")},
		fp.Turn{fp.ToolCall("call_e2", "edit", args(map[string]any{"file_path": file, "old_string": "value12 := 12\n", "new_string": "value12 := 1200\n"}))},
		fp.Turn{fp.Text("Changed value12.")},
	)
	x := startPly(t, bin, dir, srv, w, 30, []string{"NO_COLOR=1"}, "--approval-mode", "default")
	x.waitFor("test-model · default mode")
	x.submit("change value27")
	s := x.waitFor("Allow edit?")
	if !strings.Contains(s, `grep_search "countValue" in .`) {
		t.Errorf("the search card does not name its pattern and folder:\n%s", s)
	}
	for _, want := range []string{"27 - value27 := 27", "27 + value27 := 2700"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	x.run("send-keys", "-t", "ply", "-l", "n"+reason)
	x.run("send-keys", "-t", "ply", "Enter")
	s = x.waitFor("Understood, leaving it.")
	if !strings.Contains(s, "denied: please keep") {
		t.Fatalf("the card does not show the reason:\n%s", s)
	}
	_, after, _ := strings.Cut(s, "denied: ")
	after, _, _ = strings.Cut(after, "Understood")
	if got := strings.Join(strings.Fields(after), " "); got != reason {
		t.Errorf("the reason on the card reads %q", got)
	}
	x.waitIdle()

	x.submit("then change value12")
	x.waitFor("Allow edit?")
	x.run("send-keys", "-t", "ply", "-l", "y")
	s = x.waitFor("Changed value12.")
	if !strings.Contains(s, "12 - value12 := 12") || !strings.Contains(s, "12 + value12 := 1200") {
		t.Errorf("the edit's card is not numbered as the file:\n%s", s)
	}
	x.waitIdle()
	x.submit("/diff")
	x.waitFor("changed in this session")
	s = x.waitFor("12 + value12 := 1200")
	if !strings.Contains(s, "> /diff") || !strings.Contains(s, "12 - value12 := 12") {
		t.Errorf("/diff is not echoed or not numbered as the file:\n%s", s)
	}
	for i, l := range strings.Split(s, "\n") {
		if len([]rune(l)) > w {
			t.Errorf("line %d is wider than %d: %q", i, w, l)
		}
	}

	// A !command's result is printed alone: no "running…" line stays.
	x.submit("!echo BANG-OUT")
	x.waitFor("⎿ BANG-OUT")
	// The live area shows the progress line until the next frame; once it
	// is gone from the screen, nothing of it may be left in the scrollback.
	x.waitGone("running echo BANG-OUT")
	if all := x.run("capture-pane", "-p", "-J", "-t", "ply", "-S", "-"); strings.Contains(all, "running") {
		t.Errorf("a progress line stayed in the conversation:\n%s", all)
	}
}
