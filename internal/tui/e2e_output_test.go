package tui_test

import (
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxCtrlOShowsOutput: a finished command's card keeps its last
// lines, and Ctrl+O prints its whole output.
func TestTmuxCtrlOShowsOutput(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", args(map[string]string{"command": "for i in $(seq 1 30); do printf 'out-%02d\\n' $i; done"}))},
		fp.Turn{fp.Text("COMMAND-DONE")},
	)
	x := startPly(t, bin, dir, srv, 100, 40, nil, "--approval-mode", "yolo")
	x.waitFor("test-model · yolo mode")
	x.submit("count to thirty")
	s := x.waitFor("COMMAND-DONE")
	for _, want := range []string{"out-27", "out-30", "26 more lines"} {
		if !strings.Contains(s, want) {
			t.Errorf("the finished card lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "out-05") {
		t.Errorf("the collapsed card shows the whole output:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "C-o")
	s = x.waitFor("out-05")
	for _, want := range []string{"out-01", "out-15", "out-30"} {
		if !strings.Contains(s, want) {
			t.Errorf("Ctrl+O's output lacks %q:\n%s", want, s)
		}
	}
}
