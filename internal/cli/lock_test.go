package cli

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
)

// TestSecondResumeOfHeldSessionRefused runs two ply processes on one
// session: the first resumes it and waits on the model; meanwhile this
// process's `-r ID` and `-c` are refused, naming the first one's pid and
// --fork-session, and `-r ID --fork-session` goes on from a copy. The
// transcript ends with the first process's turn only and loads cleanly.
func TestSecondResumeOfHeldSessionRefused(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	id := "6d0f3a52-1b7e-4c39-8a2d-5e4f6a7b8c9d"
	srv := fp.New(t, fp.Turn{fp.Text("first answer")})
	if r := runIn(t, dir, home, srv, "-y", "--session-id", id, "-p", "first question"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}

	// The holder: a second process whose model request waits for us.
	arrived, release := make(chan struct{}), make(chan struct{})
	slow := fp.NewServerWithHooks(fp.Hooks{Handler: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(arrived)
			<-release
			h.ServeHTTP(w, r)
		})
	}}, fp.Turn{fp.Text("holder answer")})
	t.Cleanup(slow.Close)
	var hout, herr bytes.Buffer
	holder := exec.Command(os.Args[0], "-y", "-r", id, "-p", "holder question")
	holder.Dir, holder.Stdout, holder.Stderr = dir, &hout, &herr
	holder.Env = append(os.Environ(), runPlyEnv+"=1", "PLY_HOME="+home, "OPENAI_API_KEY=k",
		"OPENAI_MODEL=m", "OPENAI_BASE_URL="+slow.URL, "PLY_RETRY_DELAY_SCALE=0.001")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	released := false
	defer func() {
		if !released {
			close(release)
			holder.Wait()
		}
	}()
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatalf("the holder never asked the model; stderr: %s", herr.String())
	}

	idle := fp.New(t)
	for _, args := range [][]string{{"-r", id}, {"-c"}} {
		r := runIn(t, dir, home, idle, append([]string{"-y", "-p", "intruder question"}, args...)...)
		want := "pid " + strconv.Itoa(holder.Process.Pid)
		if r.code != 42 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "--fork-session") || !strings.Contains(r.stderr, id) {
			t.Errorf("%v on a held session: exit %d, stderr %q; want 42 naming the session, %q and --fork-session", args, r.code, r.stderr, want)
		}
	}
	if n := len(idle.Requests()); n != 0 {
		t.Errorf("a refused run sent %d requests", n)
	}

	fork := fp.New(t, fp.Turn{fp.Text("fork answer")})
	r := runIn(t, dir, home, fork, "-y", "-r", id, "--fork-session", "-p", "fork question")
	if r.code != 0 || r.stdout != "fork answer\n" {
		t.Fatalf("--fork-session on a held session: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	// The copy is the history as it stood: with the holder's question,
	// which was on disk before the holder asked the model.
	if got := transcriptTexts(fork.Requests()[0].Messages); got != "user:first question | assistant:first answer | user:holder question | user:fork question" {
		t.Errorf("the fork sent %s", got)
	}

	close(release)
	released = true
	if err := holder.Wait(); err != nil || hout.String() != "holder answer\n" {
		t.Fatalf("holder: %v, stdout %q, stderr %s", err, hout.String(), herr.String())
	}

	list, err := session.List(home, dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions %v, err %v; want the original and the fork", list, err)
	}
	for _, s := range list {
		tr, err := session.Load(s.Path)
		if err != nil || len(tr.Warnings) > 0 {
			t.Fatalf("%s: err %v warnings %v", s.Path, err, tr.Warnings)
		}
		var texts []string
		for _, m := range tr.History {
			texts = append(texts, string(m.Role)+":"+m.Parts[0].Text)
		}
		got := strings.Join(texts, " | ")
		want := "user:first question | model:first answer | user:holder question | model:holder answer"
		if s.ID != id {
			want = "user:first question | model:first answer | user:holder question | user:fork question | model:fork answer"
			if tr.Meta.ForkedFrom != id {
				t.Errorf("fork's forked_from = %q", tr.Meta.ForkedFrom)
			}
		}
		if got != want {
			t.Errorf("%s holds %s\nwant %s", filepath.Base(s.Path), got, want)
		}
	}
}

func transcriptTexts(msgs []fp.Message) string {
	var texts []string
	for _, m := range msgs {
		if m.Role != "system" {
			texts = append(texts, m.Role+":"+m.Text())
		}
	}
	return strings.Join(texts, " | ")
}

func TestForkSessionFlag(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("copy answer")})
	if r := runIn(t, dir, home, srv, "-y", "-p", "first question"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	if r := runIn(t, dir, home, srv, "-y", "--fork-session", "-p", "x"); r.code != 42 || !strings.Contains(r.stderr, "--continue or --resume") {
		t.Errorf("--fork-session alone: exit %d stderr %q", r.code, r.stderr)
	}
	// A clean session and no prompt: refused, and no empty copy is left.
	if r := runIn(t, dir, home, srv, "-y", "-c", "--fork-session"); r.code != 42 {
		t.Errorf("fork without a prompt: exit %d stderr %q", r.code, r.stderr)
	}
	if list, _ := session.List(home, dir); len(list) != 1 {
		t.Errorf("%d sessions after a refused fork, want 1", len(list))
	}
	if locks, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.lock")); len(locks) != 1 {
		t.Errorf("lock files %v, want the first session's only", locks)
	}
	copyID := "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
	r := runIn(t, dir, home, srv, "-y", "-c", "--fork-session", "--session-id", copyID, "-p", "copy question")
	if r.code != 0 || !strings.Contains(r.stderr, copyID) {
		t.Fatalf("fork with --session-id: exit %d stderr %q", r.code, r.stderr)
	}
	if _, err := session.Find(home, dir, copyID); err != nil {
		t.Errorf("the copy is not under the id given: %v", err)
	}
}
