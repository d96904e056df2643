//go:build unix

package tui_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// The model starts a server in the background; /tasks lists it with its
// last line, and /tasks stop ends it, children and all.
func TestTmuxTasks(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "run_shell_command", args(map[string]any{
			"command": "sleep 600 & echo $! > child.pid; echo serving on 8080; wait", "is_background": true}))},
		fp.Turn{fp.Text("The server runs in the background.")},
	)
	x := startPly(t, bin, dir, srv, 100, 30, nil, "--approval-mode", "yolo")
	x.waitFor("test-model ·")
	x.run("send-keys", "-t", "ply", "-l", "start the server")
	x.run("send-keys", "-t", "ply", "Enter")
	x.waitFor("runs in the background")
	child := sandboxtest.WaitPID(filepath.Join(dir, "child.pid"), 20*time.Second)
	if child == 0 {
		t.Fatal("the job did not start")
	}

	x.run("send-keys", "-t", "ply", "-l", "/tasks")
	x.run("send-keys", "-t", "ply", "Enter")
	x.waitFor("serving on 8080")
	x.waitFor("bg-1  running")

	x.run("send-keys", "-t", "ply", "-l", "/tasks stop bg-1")
	x.run("send-keys", "-t", "ply", "Enter")
	if s := x.waitFor("bg-1 stopped ("); testing.Verbose() {
		t.Logf("screen:\n%s", s)
	}
	if !sandboxtest.WaitGone(child, 5*time.Second) {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the job's child %d still runs after /tasks stop", child)
	}
}
