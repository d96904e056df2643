package tui_test

import (
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxEscReturnsQueued: Esc while a typed-ahead message waits stops
// the request and puts the message back into the input box, unsent; the
// screen keeps no stale copy of the input line after /clear or a closed
// picker.
func TestTmuxEscReturnsQueued(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.Text("working on it"), fp.Stall(30 * time.Second), fp.Text("never")},
		fp.Turn{fp.Text("ANSWER-TWO")},
	)
	x := startPly(t, bin, dir, srv, 100, 30, nil, "--approval-mode", "default")
	x.waitFor("test-model · default mode")
	x.submit("first prompt")
	x.waitFor("working on it")
	x.submit("QUEUED-ONE")
	x.waitFor("1 queued")
	x.run("send-keys", "-t", "ply", "Escape")
	s := x.waitFor("cancelled")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s, "> QUEUED-ONE") {
		if time.Now().After(deadline) {
			t.Fatalf("the queued message is not back in the input box:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
		s = x.screen()
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests; the queued message must not be sent", n)
	}
	// Sending it now works as typed.
	x.run("send-keys", "-t", "ply", "Enter")
	x.waitFor("ANSWER-TWO")
	x.waitIdle()

	// /clear and a closed picker leave no copy of what the input held;
	// /resume is shown once, as the command that ran.
	x.submit("/clear")
	x.waitFor("(new conversation; the last one is saved")
	x.submit("/resume")
	x.waitFor("Resume a session")
	x.run("send-keys", "-t", "ply", "Escape")
	x.waitGone("Resume a session")
	all := x.run("capture-pane", "-p", "-J", "-t", "ply", "-S", "-")
	for _, stale := range []string{"> /clear", "Resume a session"} {
		if strings.Contains(all, stale) {
			t.Errorf("%q left on screen or in the scrollback:\n%s", stale, all)
		}
	}
	if n := strings.Count(all, "> /resume"); n != 1 {
		t.Errorf("\"> /resume\" is shown %d times, want once (the echo):\n%s", n, all)
	}
}
