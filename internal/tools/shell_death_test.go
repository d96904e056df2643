package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	if testing.Short() {
		t.Skip("takes 5 s")
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ply := exec.Command(self, "-test.run=^$")
	ply.Dir = dir
	// A child in the group, one that left it with setsid, one under
	// nohup, and the command itself.
	ply.Env = append(os.Environ(), shellDeathEnv+"=(sleep 3; touch child-marker) & setsid sh -c 'touch ready; sleep 3; touch setsid-marker' & nohup sh -c 'sleep 3; touch nohup-marker' >/dev/null 2>&1 & echo $$ > pid; sleep 3; touch marker")
	if err := ply.Start(); err != nil {
		t.Fatal(err)
	}
	pid := sandboxtest.WaitPID(filepath.Join(dir, "pid"), 10*time.Second)
	if pid == 0 || !sandboxtest.WaitFile(filepath.Join(dir, "ready"), 10*time.Second) {
		_ = ply.Process.Kill()
		_ = ply.Wait()
		t.Fatal("the command did not start")
	}
	_ = ply.Process.Signal(syscall.SIGKILL)
	_ = ply.Wait()

	time.Sleep(5 * time.Second)
	for _, f := range []string{"marker", "child-marker", "setsid-marker", "nohup-marker"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("the command went on after ply died: %s exists (stat: %v)", f, err)
		}
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d is still there after ply died (kill: %v)", pid, err)
	}
}
