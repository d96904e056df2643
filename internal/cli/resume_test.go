package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// runIn runs the command with a fixed PLY_HOME so runs share sessions.
func runIn(t *testing.T, dir, home string, srv *fp.Server, args ...string) result {
	t.Helper()
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL,
		"PLY_HOME": home, "PLY_RETRY_DELAY_SCALE": "0.001"}
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir})
	return result{out.String(), errb.String(), code}
}

func TestTornLastLineLoadsWithWarning(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("second answer")})
	if r := runIn(t, dir, home, srv, "-y", "-p", "first question"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A crash in the middle of writing a line.
	if _, err := f.WriteString(`{"type":"entry","message":{"role":"user","parts":[{"te`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := runIn(t, dir, home, srv, "-y", "--continue", "-p", "second question")
	if r.code != 0 || r.stdout != "second answer\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning") {
		t.Fatalf("expected a warning about the torn line: %q", r.stderr)
	}
	msgs := srv.Requests()[1].Messages
	var texts []string
	for _, m := range msgs {
		if m.Role != "system" {
			texts = append(texts, m.Role+":"+m.Text())
		}
	}
	if got := strings.Join(texts, " | "); got != "user:first question | assistant:first answer | user:second question" {
		t.Fatalf("resumed history: %s", got)
	}
}

func TestResumeByIDAndInterruptedPrompt(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	// The first run's request fails for good: the prompt stays unanswered.
	srv := fp.New(t,
		fp.Turn{fp.Status(400, `{"error":{"message":"bad"}}`, nil)},
		fp.Turn{fp.Text("answered now")},
	)
	id := "3f2a7c1e-8d4b-4c2a-9e6f-0a1b2c3d4e5f"
	if r := runIn(t, dir, home, srv, "-y", "--session-id", id, "-p", "the question"); r.code == 0 {
		t.Fatal("the first run should fail")
	}
	// Resume by a prefix, without a new prompt: the saved prompt is resent
	// once, not duplicated.
	r := runIn(t, dir, home, srv, "-y", "-r", id[:8])
	if r.code != 0 || r.stdout != "answered now\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	n := 0
	for _, m := range srv.Requests()[1].Messages {
		if m.Role == "user" && m.Text() == "the question" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the interrupted prompt appears %d times, want 1", n)
	}
	if r := runIn(t, dir, home, srv, "-y", "-r", "nope"); r.code != 42 {
		t.Fatalf("unknown session: exit %d", r.code)
	}
}
