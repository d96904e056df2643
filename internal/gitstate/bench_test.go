package gitstate

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkReadSmall reads a repository of 20 files with one change and
// one untracked file, as the snapshot finds a small project.
func BenchmarkReadSmall(b *testing.B) { benchSmall(b, 1) }

// BenchmarkReadSmallHistory is BenchmarkReadSmall with the five commits
// the snapshot's log shows.
func BenchmarkReadSmallHistory(b *testing.B) { benchSmall(b, 5) }

func benchSmall(b *testing.B, commits int) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for i := 0; i < 20; i++ {
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%d", i%4)), 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%d/f%d.go", i%4, i)), []byte("package main\n"), 0o644)
	}
	// Written well before the index, as a project's files are: their
	// stat data then tells that they are unchanged.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	git("add", ".")
	git("commit", "-qm", "first")
	for i := 1; i < commits; i++ {
		git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("change %d", i))
	}
	os.WriteFile(filepath.Join(dir, "d1/f1.go"), []byte("package main // changed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644)
	benchRead(b, dir, env)
}

// BenchmarkReadModule reads the repository this package is in.
func BenchmarkReadModule(b *testing.B) {
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		b.Skip("not in a git checkout")
	}
	benchRead(b, root, os.Environ())
}

func benchRead(b *testing.B, dir string, env []string) {
	b.Helper()
	if _, err := Read(context.Background(), dir, env); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Read(context.Background(), dir, env)
	}
}
