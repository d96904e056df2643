package cli

import (
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
)

// /clear starts a new session: the conversation left stays saved and
// resumable, and the new one starts empty.
func TestClearStartsANewSession(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t)
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	c, _ := testCore(t, dir, env, "-p", "x")
	old := c.ID()
	c.Chat().SetHistory([]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "the first conversation"}}}})
	c.Transcript().Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "the first conversation"}}})
	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	if c.ID() == old || len(c.Messages()) != 0 {
		t.Fatalf("after /clear: id %s (was %s), %d messages", c.ID(), old, len(c.Messages()))
	}
	sum, err := session.Find(home, c.Workspace().Root(), old)
	if err != nil || sum.FirstPrompt != "the first conversation" {
		t.Fatalf("the session left: %+v, %v", sum, err)
	}
	list, err := c.Sessions()
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	for _, s := range list {
		if s.Current != (s.ID == c.ID()) {
			t.Errorf("session %s marked current %v", s.ID, s.Current)
		}
	}
	if _, err := c.Switch(old); err != nil {
		t.Fatalf("resuming the session left: %v", err)
	}
	if h := c.Messages(); len(h) != 1 || h[0].Parts[0].Text != "the first conversation" {
		t.Fatalf("resumed history %+v", h)
	}
}

// A session named with /rename resumes by its name: ply -r NAME.
func TestResumeByName(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("again")})
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	c, _ := testCore(t, dir, env, "-p", "x")
	c.Transcript().Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "first work"}}})
	if err := c.Rename("Auth refactor"); err != nil {
		t.Fatal(err)
	}
	id := c.ID()
	if _, err := c.CloseTranscript(); err != nil {
		t.Fatal(err)
	}
	r := runPlyHome(t, dir, home, srv, "-r", "auth refactor", "-o", "stream-json", "-p", "go on")
	if r.code != 0 || !strings.Contains(r.stdout, `"session_id":"`+id+`"`) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
