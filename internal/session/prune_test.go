package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestArtifactDirIsTheSessionsOwn(t *testing.T) {
	home, ws, w := newSession(t, "s-1")
	defer w.Close()
	dir, err := ArtifactDir(home, ws, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	proj, _ := ProjectDir(home, ws)
	if dir != filepath.Join(proj, "s-1") || w.Dir() != dir {
		t.Fatalf("ArtifactDir %q, Writer.Dir %q, want %q", dir, w.Dir(), filepath.Join(proj, "s-1"))
	}
	if _, err := ArtifactDir(home, ws, "../escape"); err == nil {
		t.Fatal("an id that is not a file name was accepted")
	}
}

// Prune removes the sessions last written before the cutoff, transcript
// and directory, and leaves the others (and other projects) alone.
func TestPrune(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	now := time.Now()
	mk := func(id string, age time.Duration) string {
		w, err := Create(home, ws, id, "m")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(w.Dir(), "tool-output"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.Dir(), "tool-output", "x.txt"), []byte("big"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		old := now.Add(-age)
		if err := os.Chtimes(w.Path(), old, old); err != nil {
			t.Fatal(err)
		}
		return w.Dir()
	}
	oldDir := mk("old", 40*24*time.Hour)
	newDir := mk("new", time.Hour)
	// An orphaned directory (its transcript is gone), old.
	proj, _ := ProjectDir(home, ws)
	orphan := filepath.Join(proj, "orphan")
	if err := os.MkdirAll(orphan, 0o700); err != nil {
		t.Fatal(err)
	}
	past := now.Add(-50 * 24 * time.Hour)
	_ = os.Chtimes(orphan, past, past)
	// Another project's old session is not this project's to prune.
	otherWS := t.TempDir()
	w, err := Create(home, otherWS, "other", "m")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	_ = os.Chtimes(w.Path(), past, past)

	removed, err := Prune(home, ws, now.Add(-30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].ID != "old" {
		t.Fatalf("removed %+v, want the old session only", removed)
	}
	for _, p := range []string{oldDir, oldDir + ext, orphan} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	for _, p := range []string{newDir, newDir + ext, w.Path()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	list, err := List(home, ws)
	if err != nil || len(list) != 1 || list[0].ID != "new" {
		t.Fatalf("List after prune: %+v, %v", list, err)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"30d": 30 * 24 * time.Hour, "1d": 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute, "1.5d": 36 * time.Hour,
	} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "-1d", "-3h", "0", "30", "abc", "1e400d", "NaNd", "+Infd"} {
		if got, err := ParseAge(bad); err == nil {
			t.Errorf("ParseAge(%q) = %v, want an error", bad, got)
		}
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"30d", "12h", "1.5d", "-1d", "", "9999999999d", "1h30m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseAge(s)
		if err == nil && d <= 0 {
			t.Fatalf("ParseAge(%q) = %v without an error", s, d)
		}
	})
}

// An id that is a prefix of another (ids may hold dots) takes only its own
// files along.
func TestPruneLeavesSessionsWithALongerID(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	past := time.Now().Add(-48 * time.Hour)
	for _, id := range []string{"a", "a.b"} {
		w, err := Create(home, ws, id, "m")
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if id == "a" {
			_ = os.Chtimes(w.Path(), past, past)
		}
	}
	removed, err := Prune(home, ws, time.Now().Add(-24*time.Hour))
	if err != nil || len(removed) != 1 || removed[0].ID != "a" {
		t.Fatalf("removed %+v, %v", removed, err)
	}
	if l, _ := List(home, ws); len(l) != 1 || l[0].ID != "a.b" {
		t.Fatalf("left %+v, want a.b", l)
	}
}
