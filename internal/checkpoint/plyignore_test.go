package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// untrustedRepo makes a repository whose .plyignore reads "*", with two
// tracked files and two untracked ones.
func untrustedRepo(t *testing.T) string {
	root := gitRepo(t)
	write(t, root, "a.go", "package a\n", 0o644)
	write(t, root, "src/b.go", "package src\n", 0o644)
	gitIn(t, root, "add", "a.go", "src")
	write(t, root, ".plyignore", "*\n", 0o644)
	write(t, root, "scratch.txt", "untracked", 0o644)
	write(t, root, "src/notes.txt", "untracked too", 0o644)
	return root
}

// In a folder the user has not trusted, a .plyignore cannot take the
// files git tracks out of checkpoints: "*" must not turn them off.
func TestUntrustedPlyIgnoreKeepsTrackedFiles(t *testing.T) {
	ctx := context.Background()
	root := untrustedRepo(t)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	res, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	got := recorded(t, s, res.ID)
	// src/ holds tracked files, so the .plyignore cannot hide it; within
	// it, "*" still excludes the untracked notes.txt.
	if want := []string{"a.go", "src/b.go"}; !slices.Equal(got, want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	if res.PlyIgnoreOverruled != 3 || res.PlyIgnored != 3 {
		t.Errorf("overruled %d (want a.go, src, src/b.go), left out %d (want .plyignore, scratch.txt, src/notes.txt)", res.PlyIgnoreOverruled, res.PlyIgnored)
	}

	write(t, root, "a.go", "package a // edited\n", 0o644)
	_, err = s.Restore(ctx, res.ID)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(root, "a.go")); string(b) != "package a\n" {
		t.Errorf("a.go not restored: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "scratch.txt")); err != nil {
		t.Errorf("scratch.txt, left out, was touched: %v", err)
	}
}

// In a trusted folder the .plyignore excludes what it says, and the
// checkpoint says that it left out files git tracks.
func TestTrustedPlyIgnoreExcludingTrackedFilesWarns(t *testing.T) {
	ctx := context.Background()
	root := untrustedRepo(t)
	s, err := Open(t.TempDir(), Options{TrustPlyIgnore: true})
	must(t, err)
	res, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if res.Files != 0 {
		t.Fatalf("recorded %q despite a trusted .plyignore of *", recorded(t, s, res.ID))
	}
	if w := res.IgnoreWarning(); !strings.Contains(w, "2 files git tracks") {
		t.Errorf("IgnoreWarning = %q, want it to name the 2 tracked files left out", w)
	}
}

// Without git, nothing is tracked: a .plyignore excluding most of the
// tree is honoured, and the checkpoint says so; one excluding a
// dependency directory is not worth a word.
func TestPlyIgnoreWarningThreshold(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, plyignore string
		warn            bool
	}{
		{"everything", "*\n", true},
		{"all but one", "/*\n!/keep.txt\n", true},
		{"dependencies", "node_modules/\nvendor/\n", false},
		{"many large files", "*.bin\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, ".plyignore", c.plyignore, 0o644)
			write(t, root, "keep.txt", "k", 0o644)
			for i := range 20 {
				write(t, root, fmt.Sprintf("src/f%d.go", i), "package src\n", 0o644)
				write(t, root, fmt.Sprintf("node_modules/m%d/index.js", i), "//", 0o644)
				write(t, root, fmt.Sprintf("vendor/v%d.go", i), "package v\n", 0o644)
			}
			for i := range 5 {
				write(t, root, fmt.Sprintf("data/d%d.bin", i), "bin", 0o644)
			}
			for _, trust := range []bool{false, true} {
				s, err := Open(t.TempDir(), Options{TrustPlyIgnore: trust})
				must(t, err)
				res, err := s.Checkpoint(ctx, []string{root})
				must(t, err)
				if w := res.IgnoreWarning(); (w != "") != c.warn {
					t.Errorf("trusted %v: %d files recorded, %d left out: IgnoreWarning = %q", trust, res.Files, res.PlyIgnored, w)
				}
			}
		})
	}
}

// The tracked set lives outside the watched tree: after "git add" of a
// file the untrusted .plyignore excluded, a session's store (with its
// change tracker) records it at the next checkpoint.
func TestUntrustedPlyIgnoreFollowsTheIndex(t *testing.T) {
	ctx := context.Background()
	root := untrustedRepo(t)
	s, err := Open(t.TempDir(), Options{Track: true})
	must(t, err)
	defer s.Close()
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if slices.Contains(recorded(t, s, first.ID), "scratch.txt") {
		t.Fatal("scratch.txt recorded before it was tracked")
	}
	again, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if !again.Reused || s.scans != 1 {
		t.Fatalf("an unchanged tree and index: reused %v after %d full scans, want 1", again.Reused, s.scans)
	}
	gitIn(t, root, "add", "scratch.txt")
	next, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if !slices.Contains(recorded(t, s, next.ID), "scratch.txt") {
		t.Fatalf("scratch.txt, tracked now, is not recorded: %q", recorded(t, s, next.ID))
	}
}
