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
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	ply.Remove()
	os.Exit(code)
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
	if !sandboxtest.WaitGone(pid, 10*time.Second) {
		t.Fatalf("sleep (pid %d) survived the cancellation", pid)
	}
}
