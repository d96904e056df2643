package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// playPlyEnv makes the test binary run ply's Main with the JSON list of
// arguments it holds, as the real binary would.
const playPlyEnv = "PLY_CLI_TEST_PLAY_PLY"

func playPly(argsJSON string) int {
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		return 2
	}
	return Main(context.Background(), args, IO{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stderr})
}

// TestCommandDiesWithPly kills ply with SIGKILL while its command runs:
// the command's group ends before it makes its change.
func TestCommandDiesWithPly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ply as a process and kills it")
	}
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", `{"command":"echo $$ > pid; sleep 3; touch marker"}`)},
		fp.Turn{fp.Text("done")},
	)
	ply := startPlayPly(t, dir, filepath.Join(t.TempDir(), "home"), srv.URL, "-y", "-p", "go")
	killPlyAndCheckGroup(t, dir, ply, "the command", nil)
}

// startPlayPly starts ply with args in dir, as its own process, talking to
// the fake provider at url with home as PLY_HOME.
func startPlayPly(t *testing.T, dir, home, url string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argsJSON, _ := json.Marshal(args)
	ply := exec.Command(self, "-test.run=^$")
	ply.Dir = dir
	ply.Env = append(os.Environ(), playPlyEnv+"="+string(argsJSON),
		"OPENAI_API_KEY=test-key", "OPENAI_MODEL=test-model", "OPENAI_BASE_URL="+url, "PLY_HOME="+home)
	if err := ply.Start(); err != nil {
		t.Fatal(err)
	}
	return ply
}

// killPlyAndCheckGroup waits for what (a command that writes its pid to
// dir/pid, then sleeps 3 s and touches dir/marker) to start and for quiet
// to hold (nil: at once), kills ply with SIGKILL, and checks that the
// guardian ended the command's process group before it made its change.
// quiet lets a caller wait until ply is not in the middle of sending a
// request, which the fake provider would report as a broken one.
func killPlyAndCheckGroup(t *testing.T, dir string, ply *exec.Cmd, what string, quiet func() bool) {
	t.Helper()
	pid := sandboxtest.WaitPID(filepath.Join(dir, "pid"), 20*time.Second)
	for deadline := time.Now().Add(20 * time.Second); pid != 0 && quiet != nil && !quiet() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if pid == 0 {
		_ = ply.Process.Kill()
		_ = ply.Wait()
		t.Fatal(what + " did not start")
	}
	_ = ply.Process.Kill()
	_ = ply.Wait()
	// Once the group is gone nothing of it can make the change any more,
	// so the marker's absence then is final.
	if !sandboxtest.WaitGroupGone(pid, 15*time.Second) {
		_ = sandboxtest.KillGroup(pid)
		t.Fatalf("process group %d is still there 15 s after ply died", pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !os.IsNotExist(err) {
		t.Errorf("%s went on after ply died (stat: %v)", what, err)
	}
}
