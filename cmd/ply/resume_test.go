package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestKillDuringToolThenContinue kills ply with SIGKILL while a shell
// command runs, then `ply --continue -p "go on"` must send a history in
// which that call has exactly one synthetic error response, and the
// transcript must have lost no entry.
func TestKillDuringToolThenContinue(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t,
		fp.Turn{fp.Text("Starting the long job."), fp.ToolCall("long1", "run_shell_command", `{"command":"touch started; sleep 30"}`)},
		fp.Turn{fp.Text("It was interrupted; moving on.")},
	)
	env := append(os.Environ(), "OPENAI_API_KEY=k", "OPENAI_MODEL=m", "OPENAI_BASE_URL="+srv.URL, "PLY_HOME="+home)

	cmd := exec.Command(bin, "-y", "-p", "run the long job")
	cmd.Dir, cmd.Env = dir, env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the tool never started; stderr:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	// The transcript holds the prompt and the model's reply with its call.
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v", files)
	}
	before := entries(t, files[0])
	if len(before) != 2 || !strings.Contains(before[1], `"long1"`) {
		t.Fatalf("transcript before resume has %d entries:\n%s", len(before), strings.Join(before, "\n"))
	}

	res := exec.Command(bin, "-y", "--continue", "-p", "go on")
	res.Dir, res.Env = dir, env
	out, err := res.CombinedOutput()
	if err != nil {
		t.Fatalf("--continue: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var answers []fp.Message
	var user string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" && m.ToolCallID == "long1" {
			answers = append(answers, m)
		}
		if m.Role == "user" {
			user = m.Text()
		}
	}
	if len(answers) != 1 || !strings.Contains(strings.ToLower(answers[0].Text()), "interrupted") {
		t.Fatalf("the dangling call should have exactly one synthetic error response, got %+v", answers)
	}
	// The new prompt, then the note of what changed in the workspace
	// since the session was last shown it (the tool's "started" file).
	if prompt, note, _ := strings.Cut(user, "\n"); prompt != "go on" || !strings.Contains(note, "<system-reminder>") || !strings.Contains(note, "started") {
		t.Fatalf("last user text %q, want the new prompt and a note naming the change", user)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Fatal(err)
	}
	after := entries(t, files[0])
	if len(after) != 4 || after[0] != before[0] || after[1] != before[1] {
		t.Fatalf("transcript after resume should extend the first one by 2 entries, got %d:\n%s", len(after), strings.Join(after, "\n"))
	}

	// `ply sessions` lists it.
	ls := exec.Command(bin, "sessions")
	ls.Dir, ls.Env = dir, env
	lo, err := ls.CombinedOutput()
	if err != nil || !strings.Contains(string(lo), "run the long job") {
		t.Fatalf("ply sessions: %v\n%s", err, lo)
	}
}

// entries returns the transcript's entry lines.
func entries(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Type == "entry" {
			out = append(out, sc.Text())
		}
	}
	return out
}
