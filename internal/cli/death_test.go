package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// TestCommandDiesWithPly kills ply with SIGKILL while its command runs
// (issue 16's acceptance): 5 s later the command has not made its change
// and no process of its group is left.
func TestCommandDiesWithPly(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 5 s")
	}
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", `{"command":"echo $$ > pid; sleep 3; touch marker"}`)},
		fp.Turn{fp.Text("done")},
	)
	ply := startPlayPly(t, dir, filepath.Join(t.TempDir(), "home"), srv.URL, "-y", "-p", "go")
	killPlyAndCheckGroup(t, dir, ply, "the command")
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
// dir/pid and touches dir/marker 3 s later) to start, kills ply with
// SIGKILL and checks, 5 s later, that the marker is not there and no
// process of the command's group is left.
func killPlyAndCheckGroup(t *testing.T, dir string, ply *exec.Cmd, what string) {
	t.Helper()
	pid := sandboxtest.WaitPID(filepath.Join(dir, "pid"), 20*time.Second)
	if pid == 0 {
		_ = ply.Process.Kill()
		_ = ply.Wait()
		t.Fatal(what + " did not start")
	}
	_ = ply.Process.Signal(syscall.SIGKILL)
	_ = ply.Wait()
	time.Sleep(5 * time.Second)
	if _, err := os.Stat(filepath.Join(dir, "marker")); !os.IsNotExist(err) {
		t.Errorf("%s went on after ply died (stat: %v)", what, err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d is still there (kill: %v)", pid, err)
	}
}
