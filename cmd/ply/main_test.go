package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// buildPly builds the real binary once per test binary run.
func buildPly(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ply")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func plyCmd(t *testing.T, bin, dir string, srv *fp.Server, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=k", "OPENAI_MODEL=m", "OPENAI_BASE_URL="+srv.URL,
		"PLY_HOME="+filepath.Join(t.TempDir(), "home"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// TestSignals checks the real process: the first SIGINT cancels the
// running shell command (its whole process group) and ends the run with an
// error result and exit code 130.
func TestSignals(t *testing.T) {
	bin := buildPly(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "pid")
	srv := fp.New(t, fp.Turn{fp.ToolCall("s1", "run_shell_command",
		`{"command":"sleep 30 & echo $! > pid; wait"}`)})
	cmd, out, errb := plyCmd(t, bin, dir, srv, "-y", "-o", "stream-json", "-p", "wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(marker); err == nil && len(bytes.TrimSpace(b)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the command never started; stderr:\n%s", errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if time.Since(start) > 5*time.Second {
		t.Fatalf("ply took %s to stop after SIGINT", time.Since(start))
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr:\n%s", err, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res["type"] != "result" || res["is_error"] != true {
		t.Fatalf("last line %q should be an error result", lines[len(lines)-1])
	}
	// The grandchild sleep died with the group.
	b, _ := os.ReadFile(marker)
	var pid int
	if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &pid); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if alive(pid) {
		t.Fatalf("sleep (pid %d) survived the cancellation", pid)
	}
}

// alive reports whether pid runs; a zombie (killed, not yet reaped by a
// container's init) does not count.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
