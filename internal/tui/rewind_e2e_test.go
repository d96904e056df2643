package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxRewind: /rewind, the newest prompt, "restore code and
// conversation": the file is back, the prompt is in the input box, and
// the next request holds the history up to before that prompt.
func TestTmuxRewind(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", args(map[string]string{"command": "echo first > notes.txt"}))},
		fp.Turn{fp.Text("one done")},
		fp.Turn{fp.ToolCall("s2", "run_shell_command", args(map[string]string{"command": "echo second > notes.txt"}))},
		fp.Turn{fp.Text("two done")},
		fp.Turn{fp.Text("again done")},
	)
	x := startPly(t, bin, dir, srv, 100, 30, nil, "--approval-mode", "yolo")
	x.waitFor("test-model · yolo mode")
	for _, p := range []struct{ prompt, done string }{{"alpha prompt", "one done"}, {"beta prompt", "two done"}} {
		x.run("send-keys", "-t", "ply", "-l", p.prompt)
		x.run("send-keys", "-t", "ply", "Enter")
		x.waitFor(p.done)
	}
	x.waitIdle()
	if b, _ := os.ReadFile(notes); string(b) != "second\n" {
		t.Fatalf("notes.txt = %q before the rewind", b)
	}
	x.run("send-keys", "-t", "ply", "-l", "/rewind")
	x.run("send-keys", "-t", "ply", "Enter")
	s := x.waitFor("Enter pick")
	if i, j := strings.LastIndex(s, "beta prompt"), strings.LastIndex(s, "alpha prompt"); i < 0 || j < 0 || i > j {
		t.Fatalf("picker not newest first:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "Enter") // the newest prompt
	x.waitFor("restore code and conversation")
	x.run("send-keys", "-t", "ply", "Enter")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, _ := os.ReadFile(notes); string(b) == "first\n" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("notes.txt = %q after the rewind; screen:\n%s", b, x.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The prompt is back in the input box: Enter sends it again.
	x.run("send-keys", "-t", "ply", "Enter")
	if s := x.waitFor("again done"); !strings.Contains(s, "Restored the files") {
		t.Errorf("the rewind's note is not on screen:\n%s", s)
	}
	reqs := srv.Requests()
	var users []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" {
			users = append(users, string(m.Content))
		}
	}
	got := strings.Join(users, " | ")
	if strings.Count(got, "beta prompt") != 1 || !strings.Contains(got, "alpha prompt") || !strings.Contains(users[len(users)-1], "beta prompt") {
		t.Fatalf("the request after the rewind holds: %s", got)
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(string(m.Content), "two done") {
			t.Fatalf("the rewound reply is still in the history")
		}
	}
}
