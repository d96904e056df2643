package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxCutBatchAndTurnCap drives the real terminal through both of the
// loop's promises: Esc while one call of a batch runs keeps the finished
// write's real result for the next prompt's request, and reaching the
// per-turn cap asks whether to go on instead of ending the turn.
func TestTmuxCutBatchAndTurnCap(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ply"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ply", "settings.json"), []byte(`{"model": {"maxToolCallsPerTurn": 2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(id string, off int) fp.Step {
		return fp.ToolCall(id, "read_file", args(map[string]any{"file_path": "a.txt", "offset": off}))
	}
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("w1", "write_file", args(map[string]any{"file_path": "out.txt", "content": "hello\n"})),
			fp.ToolCall("s1", "run_shell_command", `{"command":"touch started; sleep 20"}`),
		},
		fp.Turn{read("r1", 0), read("r2", 1), read("r3", 2)},
		fp.Turn{fp.Text("went on past the cap.")},
	)
	x := startPly(t, bin, dir, srv, 100, 30, nil, "--trust-workspace", "--approval-mode", "yolo")
	x.waitFor("test-model")
	x.submit("write and wait")
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err1 := os.Stat(filepath.Join(dir, "out.txt"))
		_, err2 := os.Stat(filepath.Join(dir, "started"))
		if err1 == nil && err2 == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the batch never started; screen:\n%s", x.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	x.run("send-keys", "-t", "ply", "Escape")
	x.waitFor("cancelled")

	x.submit("read a few")
	x.waitFor("Allow another 2 tool calls?")
	reqs := srv.Requests()
	var w1 string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" && m.ToolCallID == "w1" {
			w1 = m.Text()
		}
	}
	if !strings.Contains(w1, "Successfully created new file") {
		t.Errorf("the write's result in the next prompt's request is %q, want its real success text", w1)
	}
	x.run("send-keys", "-t", "ply", "-l", "y")
	s := x.waitFor("went on past the cap.")
	if strings.Contains(s, "✗ stopped") {
		t.Errorf("the turn was shown as stopped:\n%s", s)
	}
	reqs = srv.Requests()
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Text(), "another 2 tool calls") {
		t.Errorf("the interaction went on with %+v", last)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}
