package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// store creates sessions in one workspace, each modified a minute after
// the one before.
func store(t *testing.T, home, ws string, ids ...string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	base := time.Now().Add(-time.Hour)
	for i, id := range ids {
		w, err := Create(home, ws, id, "m")
		if err != nil {
			t.Fatal(err)
		}
		w.Append(user(text("<system-reminder>ctx</system-reminder>")))
		w.Append(model(llm.FinishStop, text("ok")))
		w.Append(user(text("  prompt of\n\t" + id + "  ")))
		for range i + 1 {
			w.Append(model(llm.FinishToolCalls, call("c", "read_file", `{}`)))
			w.Append(user(resp("c", "read_file", `"role":"model"`)))
		}
		mustClose(t, w)
		mod := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(w.Path(), mod, mod); err != nil {
			t.Fatal(err)
		}
		paths[id] = w.Path()
	}
	return paths
}

func TestList(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	paths := store(t, home, ws, "abc-1", "abc-2", "def-1")
	store(t, home, t.TempDir(), "elsewhere")
	dir := sessionsDir(t, home, ws)
	// Not sessions: left out, not an error.
	for name, content := range map[string]string{"notes.txt": "x", "broken.jsonl": "garbage\n", "empty.jsonl": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A torn last line is not counted.
	appendRaw(t, paths["def-1"], `{"type":"entry","message":{"role":"model","parts":[`)

	got, err := List(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, " ") != "def-1 abc-2 abc-1" {
		t.Fatalf("List = %v, want newest first", ids)
	}
	for i, s := range got {
		id := ids[i]
		if s.Path != paths[id] || s.Model != "m" || s.Created.IsZero() || s.Modified.IsZero() {
			t.Errorf("%s: %+v", id, s)
		}
		if want := "prompt of " + id; s.FirstPrompt != want {
			t.Errorf("%s: first prompt %q, want %q", id, s.FirstPrompt, want)
		}
		// One "ok" plus one per tool round; a tool output mentioning
		// "role":"model" is not a turn.
		if want := 1 + (3 - i); s.Turns != want {
			t.Errorf("%s: %d turns, want %d", id, s.Turns, want)
		}
	}

	if got, err := List(t.TempDir(), ws); err != nil || len(got) != 0 {
		t.Errorf("List with no store = %v, %v", got, err)
	}
}

func TestLatest(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	if _, err := Latest(home, ws); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Latest with no sessions = %v, want ErrNotFound", err)
	}
	store(t, home, ws, "old", "new")
	s, err := Latest(home, ws)
	if err != nil || s.ID != "new" || s.Turns != 3 {
		t.Fatalf("Latest = %+v, %v", s, err)
	}
	// The newest file is not a session: fall back to the next newest.
	bad := filepath.Join(sessionsDir(t, home, ws), "zzz.jsonl")
	if err := os.WriteFile(bad, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Latest(home, ws); err != nil || s.ID != "new" {
		t.Errorf("Latest past a broken file = %+v, %v", s, err)
	}
}

func TestFind(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	store(t, home, ws, "abc-1", "abc-12", "abd-7", "def-1")
	for id, want := range map[string]string{
		"abc-1":  "abc-1", // exact, though also a prefix of abc-12
		"abc-12": "abc-12",
		"abd":    "abd-7",
		"d":      "def-1",
	} {
		if s, err := Find(home, ws, id); err != nil || s.ID != want {
			t.Errorf("Find(%q) = %q, %v; want %q", id, s.ID, err, want)
		}
	}
	_, err := Find(home, ws, "ab")
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "abc-1, abc-12, abd-7") {
		t.Errorf("Find(ab) = %v, want ErrAmbiguous listing the matches", err)
	}
	for _, id := range []string{"x", "", "../abc-1", "abc-1.jsonl"} {
		if _, err := Find(home, ws, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Find(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestFirstPrompt(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, tc := range []struct {
		m    llm.Message
		want string
	}{
		{user(text("  hello\n\n  world ")), "hello world"},
		{user(text("<system-reminder>x</system-reminder>"), llm.Part{Text: "thinking", Thought: true}, text("real")), "real"},
		{user(resp("c", "t", "output")), ""},
		{user(text(long)), strings.TrimSpace(long[:79]) + "…"},
		{user(text(strings.Repeat("ж", 80))), strings.Repeat("ж", 80)},
		{user(text(strings.Repeat("ж", 81))), strings.Repeat("ж", 79) + "…"},
		{user(text("a" + strings.Repeat(" ", 1<<20) + "b")), "a…"},
	} {
		if got := firstPrompt(&tc.m); got != tc.want {
			t.Errorf("firstPrompt = %q, want %q", got, tc.want)
		}
	}
}

// A session that never got a prompt (a UI closed at once) is passed over
// for the one before it; alone, it is still found.
func TestLatestSkipsEmpty(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	store(t, home, ws, "real")
	w, err := Create(home, ws, "empty", "m")
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)
	if s, err := Latest(home, ws); err != nil || s.ID != "real" {
		t.Fatalf("Latest = %+v, %v; want the session with a prompt", s, err)
	}
	home2 := t.TempDir()
	w, err = Create(home2, ws, "only", "m")
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)
	if s, err := Latest(home2, ws); err != nil || s.ID != "only" {
		t.Fatalf("Latest of an empty session alone = %+v, %v", s, err)
	}
}
