package tui_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// longReply is a reply taller than any test terminal: numbered lines, a
// table and a last line, so a replay cut short shows.
func longReply() string {
	var b strings.Builder
	b.WriteString("# Report\n\nThe steps:\n\n")
	for i := 1; i <= 140; i++ {
		fmt.Fprintf(&b, "%d. step line %03d\n", i, i)
	}
	b.WriteString("\n| name | value |\n|---|---|\n| alpha | 1 |\n| omega | 2 |\n\nEND-OF-FIRST-REPLY\n")
	return b.String()
}

// TestTmuxContinueDrawsAll: `ply -c` in a terminal opens the UI on the
// latest session with the whole conversation drawn, at 30 and 120 rows.
func TestTmuxContinueDrawsAll(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	for _, h := range []int{30, 120} {
		t.Run(fmt.Sprint(h), func(t *testing.T) {
			t.Parallel()
			testTmuxContinueDrawsAll(t, bin, h)
		})
	}
}

func testTmuxContinueDrawsAll(t *testing.T, bin string, h int) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t,
		fp.Turn{fp.Text(longReply()), fp.Usage(100, 900)},
		fp.Turn{fp.ToolCall("s1", "run_shell_command", args(map[string]string{"command": "echo shell-said-hi"}))},
		fp.Turn{fp.Text("SECOND-REPLY-LAST")},
		fp.Turn{fp.Text("THIRD-REPLY")},
	)
	headless := func(a ...string) {
		t.Helper()
		cmd := exec.Command(bin, a...)
		cmd.Dir = dir
		cmd.Env = []string{"OPENAI_API_KEY=test-key", "OPENAI_MODEL=test-model", "OPENAI_BASE_URL=" + srv.URL, "PLY_HOME=" + home, "HOME=" + home}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ply %v: %v\n%s", a, err, out)
		}
	}
	headless("-y", "-p", "FIRST-PROMPT")
	headless("-y", "-c", "-p", "SECOND-PROMPT")

	x := startPly(t, bin, dir, srv, 100, h, []string{"PLY_HOME=" + home}, "-c", "--approval-mode", "default")
	x.waitFor("test-model · default mode")
	x.waitFor("SECOND-REPLY-LAST")
	all := x.run("capture-pane", "-p", "-J", "-t", "ply", "-S", "-")
	want := []string{"FIRST-PROMPT", "Report"}
	for i := 1; i <= 140; i++ {
		want = append(want, fmt.Sprintf("step line %03d", i))
	}
	want = append(want, "omega", "END-OF-FIRST-REPLY", "SECOND-PROMPT", "run_shell_command", "SECOND-REPLY-LAST")
	at := 0
	for _, w := range want {
		i := strings.Index(all[at:], w)
		if i < 0 {
			t.Fatalf("the resumed conversation lacks %q after position %d (in order); screen and scrollback:\n%s", w, at, all)
		}
		at += i + len(w)
	}
	if n := strings.Count(all, "step line 140"); n != 1 {
		t.Errorf("\"step line 140\" drawn %d times, want once:\n%s", n, all)
	}
	// The session goes on from there.
	x.submit("THIRD-PROMPT")
	x.waitFor("THIRD-REPLY")
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var sent strings.Builder
	for _, m := range last.Messages {
		sent.WriteString(m.Text())
	}
	if !strings.Contains(sent.String(), "END-OF-FIRST-REPLY") {
		t.Errorf("the resumed request lacks the first reply")
	}
}

// checkInOrder fails unless every string of want is in s, in order.
func checkInOrder(t *testing.T, s string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("the conversation lacks %q after position %d (in order); screen and scrollback:\n%s", w, at, s)
		}
		at += i + len(w)
	}
}

// TestTmuxResumeDrawsAll: /resume in a fresh UI draws the whole chosen
// conversation, and nothing of the picker stays on screen.
func TestTmuxResumeDrawsAll(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	for _, h := range []int{30, 120} {
		t.Run(fmt.Sprint(h), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			home := filepath.Join(t.TempDir(), "home")
			srv := fp.New(t, fp.Turn{fp.Text(longReply())}, fp.Turn{fp.Text("AFTER-RESUME")})
			cmd := exec.Command(bin, "-y", "-p", "FIRST-PROMPT")
			cmd.Dir = dir
			cmd.Env = []string{"OPENAI_API_KEY=test-key", "OPENAI_MODEL=test-model", "OPENAI_BASE_URL=" + srv.URL, "PLY_HOME=" + home, "HOME=" + home}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ply: %v\n%s", err, out)
			}
			x := startPly(t, bin, dir, srv, 100, h, []string{"PLY_HOME=" + home}, "--approval-mode", "default")
			x.waitFor("test-model · default mode")
			x.submit("/resume")
			x.waitFor("Resume a session")
			s := x.screen()
			if !strings.Contains(s, "FIRST-PROMPT") {
				t.Fatalf("the picker does not list the session:\n%s", s)
			}
			// The list is newest first; the saved session is the one
			// that is not this one.
			if strings.Contains(s, "› ") && strings.Contains(strings.SplitAfter(s, "› ")[1], "(this one)") {
				x.run("send-keys", "-t", "ply", "Down")
			}
			x.run("send-keys", "-t", "ply", "Enter")
			x.waitFor("END-OF-FIRST-REPLY")
			x.waitFor("test-model · default mode")
			all := x.run("capture-pane", "-p", "-J", "-t", "ply", "-S", "-")
			want := []string{"resumed session", "FIRST-PROMPT"}
			for i := 1; i <= 140; i++ {
				want = append(want, fmt.Sprintf("step line %03d", i))
			}
			checkInOrder(t, all, append(want, "omega", "END-OF-FIRST-REPLY"))
			if scr := x.screen(); strings.Contains(scr, "Resume a session") || strings.Contains(scr, " turn") {
				t.Errorf("picker lines left on screen:\n%s", scr)
			}
		})
	}
}

// TestTmuxPromptInteractive: -i sends its prompt from the UI as if typed
// (its @path inlined once), on a new session and with -c on the latest.
func TestTmuxPromptInteractive(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("NOTE-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("FIRST-ANSWER")}, fp.Turn{fp.Text("SECOND-ANSWER")})
	userText := func(r fp.Request) string {
		var b strings.Builder
		for _, m := range r.Messages {
			if m.Role == "user" {
				b.WriteString(m.Text() + "\n")
			}
		}
		return b.String()
	}
	t.Run("new", func(t *testing.T) {
		x := startPly(t, bin, dir, srv, 100, 30, []string{"PLY_HOME=" + home}, "-i", "'read @notes.txt'")
		x.waitFor("FIRST-ANSWER")
		x.waitFor("> read @notes.txt")
		if n := strings.Count(userText(srv.Requests()[0]), "NOTE-CONTENT"); n != 1 {
			t.Errorf("the file is in the request %d times, want once", n)
		}
	})
	t.Run("continue", func(t *testing.T) {
		x := startPly(t, bin, dir, srv, 100, 30, []string{"PLY_HOME=" + home}, "-c", "-i", "'and more'")
		x.waitFor("SECOND-ANSWER")
		s := x.screen()
		checkInOrder(t, s, []string{"> read @notes.txt", "FIRST-ANSWER", "> and more", "SECOND-ANSWER"})
		if got := userText(srv.Requests()[1]); !strings.Contains(got, "NOTE-CONTENT") || !strings.Contains(got, "and more") {
			t.Errorf("the second request lacks the first prompt or the new one:\n%s", got)
		}
	})
}
