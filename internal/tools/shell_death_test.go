package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// shellDeathEnv makes the test binary play ply: it runs the shell command
// the variable holds in the directory it is started in, and waits.
const shellDeathEnv = "PLY_TOOLS_TEST_PLAY_PLY"

// playPly is the child's side of TestShellDiesWithPly.
func playPly(command string) {
	dir, _ := os.Getwd()
	ws, err := NewWorkspace(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	args, _ := json.Marshal(map[string]any{"command": command})
	_, _ = NewShell(ws).Execute(context.Background(), args, nil)
	os.Exit(0)
}

// TestShellDiesWithPly kills ply with SIGKILL while its command runs:
// the command's whole process group must end with it, before the command
// could make its change.
func TestShellDiesWithPly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs this binary as ply and kills it")
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ply := exec.Command(self, "-test.run=^$")
	ply.Dir = dir
	// A child in the group, one that left it with setsid, one under
	// nohup, and the command itself; each writes a marker after 3 s
	// unless it dies first, and the pids of all four are written down.
	ply.Env = append(os.Environ(), shellDeathEnv+"=(sleep 3; touch child-marker) & echo $! > child.pid; "+
		"setsid sh -c 'touch ready; sleep 3; touch setsid-marker' & echo $! > setsid.pid; "+
		"nohup sh -c 'sleep 3; touch nohup-marker' >/dev/null 2>&1 & echo $! > nohup.pid; "+
		"echo $$ > pid; sleep 3; touch marker")
	if err := ply.Start(); err != nil {
		t.Fatal(err)
	}
	pid := sandboxtest.WaitPID(filepath.Join(dir, "pid"), 10*time.Second)
	if pid == 0 || !sandboxtest.WaitFile(filepath.Join(dir, "ready"), 10*time.Second) {
		_ = ply.Process.Kill()
		_ = ply.Wait()
		t.Fatal("the command did not start")
	}
	// The pid file is written after the others.
	var pids []int
	for _, f := range []string{"child.pid", "setsid.pid", "nohup.pid"} {
		p := sandboxtest.WaitPID(filepath.Join(dir, f), time.Second)
		if p == 0 {
			t.Fatalf("%s was not written before pid", f)
		}
		pids = append(pids, p)
	}
	_ = ply.Process.Kill()
	_ = ply.Wait()

	// Once every process that would write a marker is gone, none can
	// appear any more.
	if !sandboxtest.WaitGroupGone(pid, 10*time.Second) {
		t.Errorf("process group %d is still there after ply died ", pid)
	}
	for _, p := range pids {
		if !sandboxtest.WaitGone(p, 10*time.Second) {
			t.Errorf("process %d still runs after ply died", p)
			sandboxtest.Kill(p)
		}
	}
	for _, f := range []string{"marker", "child-marker", "setsid-marker", "nohup-marker"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("the command went on after ply died: %s exists (stat: %v)", f, err)
		}
	}
}
