package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestAddRootWidensReadsAndWrites(t *testing.T) {
	base := t.TempDir()
	main, extra := filepath.Join(base, "main"), filepath.Join(base, "extra")
	for _, d := range []string{main, extra} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err := NewWorkspace(main)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(extra, "notes.txt")
	if _, err := w.Resolve(target); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("before AddRoot: Resolve(%s) = %v, want ErrOutsideWorkspace", target, err)
	}
	got, err := w.AddRoot("../extra")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(extra); got != want {
		t.Fatalf("AddRoot returned %q, want %q", got, want)
	}
	if _, err := w.Resolve(target); err != nil {
		t.Fatalf("after AddRoot: %v", err)
	}
	if r := w.Roots(); len(r) != 2 || w.Root() != r[0] {
		t.Fatalf("Roots() = %v, Root() = %s", r, w.Root())
	}
	// Roots hands out a copy: the caller cannot change the workspace.
	w.Roots()[1] = "/"
	if _, err := w.Resolve("/etc/passwd"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("a caller's edit of Roots() widened the workspace: %v", err)
	}
}

func TestAddRootRefusals(t *testing.T) {
	base := t.TempDir()
	main := filepath.Join(base, "main")
	if err := os.MkdirAll(filepath.Join(main, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(main)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{"", "no directory given"},
		{filepath.Join(base, "missing"), "no such file"},
		{file, "not a directory"},
		{"sub", "already in the workspace"},
		{base, "holds the workspace root"},
	} {
		_, err := w.AddRoot(tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddRoot(%q) = %v, want an error saying %q", tc.dir, err, tc.want)
		}
	}
	if n := len(w.Roots()); n != 1 {
		t.Fatalf("a refused AddRoot changed the roots: %v", w.Roots())
	}
}

// Tools resolve paths on their own goroutines while the user adds a
// directory: the race detector checks the roots are guarded.
func TestAddRootWhileResolving(t *testing.T) {
	base := t.TempDir()
	w, err := NewWorkspace(base)
	if err != nil {
		t.Fatal(err)
	}
	extra := t.TempDir()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 200 {
			_, _ = w.Resolve(filepath.Join(extra, "x"))
			_ = w.Roots()
		}
	}()
	if _, err := w.AddRoot(extra); err != nil {
		t.Error(err)
	}
	wg.Wait()
	if _, err := w.Resolve(filepath.Join(extra, "x")); err != nil {
		t.Fatal(err)
	}
}
