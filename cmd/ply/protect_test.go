//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestCommandCannotReadPlysEnvironment: the shell command's environment
// lacks the key, and reading the key from ply's own initial environment
// (/proc/$PPID/environ, same user) fails too. Run as root, the test runs
// ply as nobody, since root reads every process's files.
func TestCommandCannotReadPlysEnvironment(t *testing.T) {
	t.Parallel()
	built := buildPly(t)
	base, err := os.MkdirTemp("", "ply-protect-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, d := range []string{"ws", "home"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(base, d), 0o777); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "ply")
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	const key = "sk-proc-environ-secret-42"
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command",
			`{"command":"printenv OPENAI_API_KEY; tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI_API_KEY; echo end"}`)},
		fp.Turn{fp.Text("done")},
	)
	cmd := exec.Command(bin, "-y", "-p", "go")
	cmd.Dir = filepath.Join(base, "ws")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "OPENAI_API_KEY=" + key, "OPENAI_MODEL=m",
		"OPENAI_BASE_URL=" + srv.URL, "PLY_HOME=" + filepath.Join(base, "home")}
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ply: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	var result string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			result = m.Text()
		}
	}
	if !strings.Contains(result, "end") {
		t.Fatalf("the command did not run:\n%s\n%s", result, out)
	}
	if strings.Contains(result, key) {
		t.Errorf("the command read the key:\n%s", result)
	}
}
