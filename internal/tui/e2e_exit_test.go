package tui_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// quitAndWait leaves ply with Ctrl+C twice and waits for its pane to die
// (remain-on-exit keeps what it printed last).
func quitAndWait(t *testing.T, x *tmux) string {
	t.Helper()
	x.run("send-keys", "-t", "ply", "C-c")
	x.run("send-keys", "-t", "ply", "C-c")
	deadline := time.Now().Add(10 * time.Second)
	for strings.TrimSpace(x.run("display-message", "-p", "-t", "ply", "#{pane_dead}")) != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("ply did not exit; screen:\n%s", x.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return x.run("capture-pane", "-p", "-J", "-t", "ply", "-S", "-")
}

// TestTmuxExitSummary: leaving after a prompt prints the time, prompts,
// tokens and the command that resumes the session; leaving without one
// keeps no session.
func TestTmuxExitSummary(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("hello there"), fp.Usage(1200, 30)})
	sessions := func() []string {
		files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
		return files
	}

	t.Run("no prompt", func(t *testing.T) {
		x := startPly(t, bin, dir, srv, 100, 30, []string{"PLY_HOME=" + home}, "--approval-mode", "default")
		x.run("set-option", "-t", "ply", "remain-on-exit", "on")
		x.waitFor("test-model · default mode")
		out := quitAndWait(t, x)
		if files := sessions(); len(files) != 0 {
			t.Errorf("a session with no prompt was kept: %v", files)
		}
		if strings.Contains(out, "resume with") {
			t.Errorf("a session with no prompt offers to be resumed:\n%s", out)
		}
	})

	x := startPly(t, bin, dir, srv, 100, 30, []string{"PLY_HOME=" + home}, "--approval-mode", "default")
	x.run("set-option", "-t", "ply", "remain-on-exit", "on")
	x.waitFor("test-model · default mode")
	x.submit("say hello")
	x.waitFor("hello there")
	out := quitAndWait(t, x)
	m := regexp.MustCompile("resume with `ply -r ([0-9a-f-]{36})`").FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "1 prompt") || !strings.Contains(out, "1.2k in / 30 out tokens") {
		t.Fatalf("no exit summary with the prompts, tokens and resume command:\n%s", out)
	}
	files := sessions()
	if len(files) != 1 || !strings.Contains(files[0], m[1]) {
		t.Fatalf("sessions %v; want the one the summary names, %s", files, m[1])
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Fatal(err)
	}
}
