package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestSIGINTKeepsFinishedResults: SIGINT while one call of a batch still
// runs, then --continue: the call that finished (a write) reaches the
// model with its real result, the one cut short as cancelled.
func TestSIGINTKeepsFinishedResults(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{
		fp.ToolCall("w1", "write_file", `{"file_path":"out.txt","content":"hello\n"}`),
		fp.ToolCall("s1", "run_shell_command", `{"command":"touch started; sleep 20"}`),
	}, fp.Turn{fp.Text("ok.")})
	env := append(os.Environ(), "OPENAI_API_KEY=k", "OPENAI_MODEL=m", "OPENAI_BASE_URL="+srv.URL, "PLY_HOME="+home)
	cmd := exec.Command(bin, "-y", "-p", "write, then wait")
	cmd.Dir, cmd.Env = dir, env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err1 := os.Stat(filepath.Join(dir, "out.txt"))
		_, err2 := os.Stat(filepath.Join(dir, "started"))
		if err1 == nil && err2 == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the batch never started; stderr:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr:\n%s", err, errb.String())
	}

	cont := exec.Command(bin, "-y", "--continue")
	cont.Dir, cont.Env = dir, env
	if out, err := cont.CombinedOutput(); err != nil {
		t.Fatalf("--continue: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	got := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			got[m.ToolCallID] = m.Text()
		}
	}
	if !strings.Contains(got["w1"], "Successfully created new file") {
		t.Errorf("the write's result on --continue is %q, want its real success text", got["w1"])
	}
	if !strings.Contains(strings.ToLower(got["s1"]), "cancelled") {
		t.Errorf("the interrupted command's result is %q, want one saying it was cancelled", got["s1"])
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}
