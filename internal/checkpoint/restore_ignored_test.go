package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A restore deletes what was created since its target; a file the
// target's own ignore rules excluded was never recorded, so it cannot have
// been created since as far as the target knows, and deleting it would
// lose it for good. Each case changes the ignore rules after the target
// so that the current scan records the file.
func TestRestoreKeepsWhatTheTargetIgnored(t *testing.T) {
	for _, track := range []bool{false, true} {
		t.Run(map[bool]string{false: "scan", true: "tracked"}[track], func(t *testing.T) { restoreKeepsIgnored(t, track) })
	}
}

func restoreKeepsIgnored(t *testing.T, track bool) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, ".gitignore", ".env\nsecrets/\n", 0o644)
	write(t, root, ".env", "TOKEN=1\n", 0o600)
	write(t, root, "secrets/key.pem", "KEY", 0o600)
	write(t, root, "sub/.gitignore", "*.local\n", 0o644)
	write(t, root, "sub/conf.local", "local", 0o644)
	write(t, root, ".plyignore", "scratch/\n", 0o644)
	write(t, root, "scratch/notes.txt", "notes", 0o644)
	write(t, root, "main.go", "package main\n", 0o644)
	write(t, root, "todo.txt", "old todo", 0o644)
	s, err := Open(t.TempDir(), Options{Track: track})
	must(t, err)
	defer s.Close()
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	for _, rel := range []string{".env", "secrets/key.pem", "sub/conf.local", "scratch/notes.txt"} {
		if slices.Contains(recorded(t, s, first.ID), rel) {
			t.Fatalf("%s was recorded though ignored", rel)
		}
	}

	// The rules change: what was ignored is recorded now; todo.txt,
	// recorded before, is ignored now and gone.
	write(t, root, ".gitignore", "/todo.txt\n", 0o644)
	write(t, root, "sub/.gitignore", "", 0o644)
	write(t, root, ".plyignore", "", 0o644)
	must(t, os.Remove(filepath.Join(root, "todo.txt")))
	write(t, root, "made.txt", "made since", 0o644)
	write(t, root, "secrets/new.pem", "NEW", 0o600) // in a directory the target ignored
	mid, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if !slices.Contains(recorded(t, s, mid.ID), ".env") {
		t.Fatal(".env is not recorded under the new rules: the test proves nothing")
	}

	res, err := s.Restore(ctx, first.ID)
	must(t, err)
	for rel, want := range map[string]string{
		".env": "TOKEN=1\n", "secrets/key.pem": "KEY", "secrets/new.pem": "NEW",
		"sub/conf.local": "local", "scratch/notes.txt": "notes",
		".gitignore": ".env\nsecrets/\n", "todo.txt": "old todo",
	} {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || string(b) != want {
			t.Errorf("after the restore %s = %q, %v; want %q", rel, b, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "made.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("made.txt, created since and not ignored by the target, survived: %v", err)
	}
	for _, p := range res.Deleted {
		if rel, _ := filepath.Rel(root, p); rel != "made.txt" {
			t.Errorf("deleted %s", rel)
		}
	}
	if len(res.KeptIgnored) != 5 {
		t.Errorf("KeptIgnored = %q, want the five files the target ignored", res.KeptIgnored)
	}

	// Undo: the rules of the undo checkpoint did not ignore .env, but it
	// holds .env, which is the same now: nothing of it is deleted either.
	_, err = s.Restore(ctx, res.Undo)
	must(t, err)
	for rel, want := range map[string]string{".env": "TOKEN=1\n", "secrets/new.pem": "NEW", "made.txt": "made since", ".gitignore": "/todo.txt\n"} {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || string(b) != want {
			t.Errorf("after the undo %s = %q, %v; want %q", rel, b, err, want)
		}
	}
}

// recorded returns the paths checkpoint id holds.
func recorded(t *testing.T, s *Store, id string) []string {
	t.Helper()
	m, err := s.Load(id)
	must(t, err)
	var out []string
	for _, e := range m.Entries {
		out = append(out, e.Rel)
	}
	return out
}

// The reverse: a file the target recorded is ignored now and was changed
// since, so no checkpoint holds what it says now. The restore puts the
// target's content back, and its undo puts the current content back.
func TestRestoreOverAFileIgnoredNowCanBeUndone(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, ".gitignore", "", 0o644)
	write(t, root, "notes.txt", "v1", 0o644)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	write(t, root, ".gitignore", "notes.txt\n", 0o644)
	write(t, root, "notes.txt", "v2, never recorded", 0o600)

	res, err := s.Restore(ctx, first.ID)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "v1" {
		t.Fatalf("notes.txt after the restore = %q, want the target's v1", b)
	}
	_, err = s.Restore(ctx, res.Undo)
	must(t, err)
	b, _ := os.ReadFile(filepath.Join(root, "notes.txt"))
	fi, _ := os.Stat(filepath.Join(root, "notes.txt"))
	if string(b) != "v2, never recorded" || fi.Mode().Perm() != 0o600 {
		t.Errorf("notes.txt after the undo = %q (%v), want the content it had before the restore", b, fi.Mode())
	}
}

// When the file ignored now is over the size cap, the undo checkpoint
// cannot save it: it is left as it is and said so.
func TestRestoreLeavesALargeFileIgnoredNow(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "notes.txt", "v1", 0o644)
	s, err := Open(t.TempDir(), Options{MaxFileBytes: 100})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	write(t, root, ".gitignore", "notes.txt\n", 0o644)
	big := strings.Repeat("x", 200)
	write(t, root, "notes.txt", big, 0o644)
	res, err := s.Restore(ctx, first.ID)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != big {
		t.Errorf("notes.txt, over the cap and unsaved, was replaced by %q", b)
	}
	if len(res.LeftInPlace) != 1 || res.LeftInPlace[0] != filepath.Join(root, "notes.txt") {
		t.Errorf("LeftInPlace = %q", res.LeftInPlace)
	}
}
