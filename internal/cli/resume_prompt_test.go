package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// gitRepoWithCommit makes a repository holding main.go in one commit.
func gitRepoWithCommit(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git program")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n", 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "main.go"}, {"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "first commit"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// skipIfSnapshotLate skips when git did not answer within the start-up
// budget: the snapshot then says so instead of the repository's state.
func skipIfSnapshotLate(t *testing.T, system string) {
	t.Helper()
	if strings.Contains(system, "within the start-up time budget") {
		t.Skip("git did not answer within the start-up budget on this machine")
	}
}

// resumeSnapshotLate is what the log says when git did not answer within
// the start-up budget on resuming: there is then nothing to compare.
const resumeSnapshotLate = "the repository snapshot on resuming has no git status to compare"

// skipIfResumeSnapshotLate skips when ply's logs under home say git did
// not answer on resuming.
func skipIfResumeSnapshotLate(t *testing.T, home string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "*.log"))
	for _, p := range logs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), resumeSnapshotLate) {
			t.Skip("git did not answer within the start-up budget on resuming on this machine")
		}
	}
}

// lastUser is the text of the last user message of a request.
func lastUser(t *testing.T, msgs []fp.Message) string {
	t.Helper()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Text()
		}
	}
	t.Fatal("the request has no user message")
	return ""
}

// A resumed session sends the system prompt of its first run byte for
// byte, so that the provider's prompt cache still holds; what changed in
// the repository meanwhile is told in a note with the new prompt.
func TestResumeKeepsTheSystemPrompt(t *testing.T) {
	t.Run("a changed file is told in a note", func(t *testing.T) {
		dir, home := gitRepoWithCommit(t), t.TempDir()
		srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("second answer")})
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-p", "first question"); r.code != 0 {
			t.Fatalf("first run: exit %d %s", r.code, r.stderr)
		}
		first := srv.Requests()[0].Messages[0]
		skipIfSnapshotLate(t, first.Text())
		if !strings.Contains(first.Text(), "git status: clean") {
			t.Fatalf("the first prompt does not show a clean repository:\n%s", first.Text())
		}
		writeFile(t, filepath.Join(dir, "main.go"), "package main // changed\n", 0o644)
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-c", "-p", "second question"); r.code != 0 || r.stdout != "second answer\n" {
			t.Fatalf("resumed run: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
		}
		msgs := srv.Requests()[1].Messages
		if msgs[0].Role != "system" || !bytes.Equal(msgs[0].Content, first.Content) {
			t.Fatalf("the resumed run's system prompt differs from the first run's:\nfirst:\n%s\nresumed:\n%s", first.Text(), msgs[0].Text())
		}
		user := lastUser(t, msgs)
		if !strings.HasPrefix(user, "second question") {
			t.Fatalf("the resumed run's message does not start with its prompt: %q", user)
		}
		if !strings.Contains(user, "<system-reminder>") || !strings.Contains(user, " M main.go") {
			skipIfResumeSnapshotLate(t, home)
			t.Fatalf("the resumed run's message does not tell of the changed file: %q", user)
		}
		// The model was told: resuming again with nothing new tells
		// nothing, and the prompt is still the first one.
		srv.Append(fp.Turn{fp.Text("third answer")})
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-c", "-p", "third question"); r.code != 0 {
			t.Fatalf("second resumed run: exit %d %s", r.code, r.stderr)
		}
		msgs = srv.Requests()[2].Messages
		if !bytes.Equal(msgs[0].Content, first.Content) {
			t.Fatalf("the second resumed run's system prompt differs from the first run's:\n%s", msgs[0].Text())
		}
		if user := lastUser(t, msgs); user != "third question" {
			t.Fatalf("the second resumed run repeats the note: %q", user)
		}
	})
	t.Run("a transcript without the facts builds the prompt anew", func(t *testing.T) {
		dir, home := gitRepoWithCommit(t), t.TempDir()
		srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("second answer")}, fp.Turn{fp.Text("third answer")})
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-p", "first question"); r.code != 0 {
			t.Fatalf("first run: exit %d %s", r.code, r.stderr)
		}
		skipIfSnapshotLate(t, srv.Requests()[0].Messages[0].Text())
		// As an older ply wrote it: no prompt record.
		files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("transcripts %v", files)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.HasPrefix(l, `{"type":"prompt"`) {
				kept = append(kept, l)
			}
		}
		if len(kept) == len(strings.SplitAfter(string(b), "\n")) {
			t.Fatalf("the transcript records no prompt facts:\n%s", b)
		}
		writeFile(t, files[0], strings.Join(kept, ""), 0o600)
		writeFile(t, filepath.Join(dir, "main.go"), "package main // changed\n", 0o644)
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-c", "-p", "second question"); r.code != 0 {
			t.Fatalf("resumed run: exit %d %s", r.code, r.stderr)
		}
		msgs := srv.Requests()[1].Messages
		second := msgs[0]
		skipIfSnapshotLate(t, second.Text())
		if !strings.Contains(second.Text(), " M main.go") {
			t.Fatalf("the prompt rebuilt on resuming lacks the change:\n%s", second.Text())
		}
		if user := lastUser(t, msgs); user != "second question" {
			t.Fatalf("a note with a prompt that shows the change: %q", user)
		}
		// From then on the session keeps that prompt.
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-c", "-p", "third question"); r.code != 0 {
			t.Fatalf("second resumed run: exit %d %s", r.code, r.stderr)
		}
		if third := srv.Requests()[2].Messages[0]; !bytes.Equal(third.Content, second.Content) {
			t.Fatalf("the second resumed run's system prompt differs:\n%s", third.Text())
		}
	})
	t.Run("nothing changed, no note", func(t *testing.T) {
		dir, home := gitRepoWithCommit(t), t.TempDir()
		srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("second answer")})
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-p", "first question"); r.code != 0 {
			t.Fatalf("first run: exit %d %s", r.code, r.stderr)
		}
		first := srv.Requests()[0].Messages[0]
		skipIfSnapshotLate(t, first.Text())
		if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-c", "-p", "second question"); r.code != 0 {
			t.Fatalf("resumed run: exit %d %s", r.code, r.stderr)
		}
		msgs := srv.Requests()[1].Messages
		if !bytes.Equal(msgs[0].Content, first.Content) {
			t.Fatalf("the resumed run's system prompt differs from the first run's:\nfirst:\n%s\nresumed:\n%s", first.Text(), msgs[0].Text())
		}
		if user := lastUser(t, msgs); user != "second question" {
			t.Fatalf("the resumed run's message carries more than its prompt: %q", user)
		}
	})
}

// /resume in the interactive UI switches to the saved session's system
// prompt too, and tells what changed since in a note.
func TestUIResumeShowsTheSessionsPrompt(t *testing.T) {
	dir, home := gitRepoWithCommit(t), t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("second answer")})
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	send := func(c *core.Session, prompt string) {
		t.Helper()
		for ev := range c.Client().SendMessageStream(context.Background(), []llm.Part{{Text: prompt}}, client.UserQuery) {
			if e, ok := ev.(turn.Error); ok {
				t.Fatalf("sending %q: %v", prompt, e.Err)
			}
		}
	}
	var logs syncBuffer
	first := uiCore(t, dir, env, &logs)
	send(first, "first question")
	id := first.ID()
	first.Close()
	system := srv.Requests()[0].Messages[0]
	skipIfSnapshotLate(t, system.Text())

	writeFile(t, filepath.Join(dir, "main.go"), "package main // changed\n", 0o644)
	second := uiCore(t, dir, env, &logs)
	defer second.Close()
	if _, err := second.Switch(id); err != nil {
		t.Fatal(err)
	}
	send(second, "second question")
	msgs := srv.Requests()[1].Messages
	if !bytes.Equal(msgs[0].Content, system.Content) {
		t.Fatalf("after /resume the system prompt differs from the session's:\nfirst:\n%s\nnow:\n%s", system.Text(), msgs[0].Text())
	}
	if user := lastUser(t, msgs); !strings.Contains(user, "<system-reminder>") || !strings.Contains(user, " M main.go") {
		if strings.Contains(logs.String(), resumeSnapshotLate) {
			t.Skip("git did not answer within the start-up budget on resuming on this machine")
		}
		t.Fatalf("the message after /resume does not tell of the changed file: %q", user)
	}
}

// uiCore builds the session core as the interactive UI's would be, in a
// trusted dir; the caller closes it.
func uiCore(t *testing.T, dir string, env map[string]string, logs io.Writer) *core.Session {
	t.Helper()
	sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, StdoutIsTTY: true, Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string { return env[k] }, Cwd: dir}
	opts, err := Parse([]string{"--trust-workspace"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := resolve(opts, sio)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := core.New(context.Background(), cfg.coreConfig(sio), io.Discard, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An ACP client's session/resume gets the session's system prompt too.
func TestACPResumeKeepsTheSystemPrompt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("First answer.")}, fp.Turn{fp.Text("Second answer.")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	first := startACP(t, srv, home)
	ns := first.newSession(t, ctx, dir)
	if _, err := first.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("first question")}}); err != nil {
		t.Fatal(err)
	}
	first.in.Close()
	select {
	case <-first.code:
	case <-time.After(20 * time.Second):
		t.Fatal("the first process did not exit")
	}
	first.code <- 0 // for its cleanup

	writeFile(t, filepath.Join(dir, "b.txt"), "b\n", 0o644)
	second := startACP(t, srv, home)
	if _, err := second.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: ns.SessionId, Cwd: dir}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if _, err := second.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("second question")}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	was, now := reqs[0].Messages[0], reqs[1].Messages[0]
	if !bytes.Equal(was.Content, now.Content) {
		t.Fatalf("the resumed session's system prompt differs:\nfirst:\n%s\nresumed:\n%s", was.Text(), now.Text())
	}
	if user := lastUser(t, reqs[1].Messages); !strings.Contains(user, "<system-reminder>") || !strings.Contains(user, "Top level now: a.txt b.txt") {
		t.Fatalf("the resumed session's message does not tell of the new file: %q", user)
	}
}
