package sysprompt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	run("add", ".")
	run("commit", "-qm", "first commit")
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // changed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	return dir
}

func TestSnapshot(t *testing.T) {
	dir := gitRepo(t)
	// A repository whose config would run a program on git status.
	marker := filepath.Join(t.TempDir(), "ran")
	f, _ := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = touch " + marker + "\n")
	f.Close()
	index := filepath.Join(dir, ".git", "index")
	before, _ := os.Stat(index)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := Snapshot(ctx, dir, true, nil).render()
	for _, want := range []string{" M main.go", "?? new.txt", "first commit", "Top level: main.go new.txt sub/"} {
		if !strings.Contains(out, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's core.fsmonitor ran")
	}
	if after, _ := os.Stat(index); !after.ModTime().Equal(before.ModTime()) {
		t.Error("the snapshot rewrote the index")
	}

}

// In a folder that is not trusted, git runs confined by the read-only
// profile: the snapshot still shows the user's uncommitted work and the
// recent commits, and the repository's configuration runs nothing.
func TestSnapshotUntrusted(t *testing.T) {
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	f, _ := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = touch " + marker + "\n")
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := Snapshot(ctx, dir, false, nil).render()
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		if !strings.Contains(out, "no read-only profile") || strings.Contains(out, "main.go\n") {
			t.Errorf("without a read-only profile git must not run:\n%s", out)
		}
		t.Skipf("the kernel has no read-only profile (%v): checked that git did not run", err)
	}
	for _, want := range []string{" M main.go", "?? new.txt", "first commit", "Top level: main.go new.txt sub/"} {
		if !strings.Contains(out, want) {
			t.Errorf("untrusted snapshot lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's core.fsmonitor ran")
	}
}

func TestSnapshotPastBudget(t *testing.T) {
	dir := gitRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := Snapshot(ctx, dir, true, nil).render()
	if !strings.Contains(out, "time budget") || strings.Contains(out, "first commit") {
		t.Errorf("a snapshot past its budget:\n%s", out)
	}
}

func BenchmarkSnapshot(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir, _ := os.Getwd()
	for b.Loop() {
		Snapshot(context.Background(), dir, true, nil)
	}
}

// A clean repository says so, and one without commits still gets its
// status.
func TestSnapshotCleanAndEmpty(t *testing.T) {
	dir := gitRepo(t)
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "second"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out := Snapshot(ctx, dir, true, nil).render(); !strings.Contains(out, "git status: clean") || !strings.Contains(out, "second") {
		t.Errorf("clean repository:\n%s", out)
	}
	empty := t.TempDir()
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = empty
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(empty, "a.txt"), []byte("x"), 0o644)
	if out := Snapshot(ctx, empty, true, nil).render(); !strings.Contains(out, "?? a.txt") {
		t.Errorf("repository without commits:\n%s", out)
	}
}

// git runs for the snapshot without ply's secrets in its environment, as
// every other process ply starts.
func TestSnapshotGitGetsNoSecrets(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	bin := t.TempDir()
	dump := filepath.Join(t.TempDir(), "env")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nenv >> "+dump+"\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SNAPSHOT_TEST_API_KEY", "sk-should-not-leak")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	Snapshot(ctx, dir, true, nil)
	env, err := os.ReadFile(dump)
	if err != nil || !strings.Contains(string(env), "PATH=") {
		t.Fatalf("the fake git did not run: %v", err)
	}
	if strings.Contains(string(env), "sk-should-not-leak") {
		t.Error("git got a secret from ply's environment")
	}
}

// In a repository the in-process reader understands, the snapshot starts
// no process at all, trusted or not, and shows what git would.
func TestSnapshotReadsWithoutGit(t *testing.T) {
	dir := gitRepo(t)
	t.Setenv("HOME", t.TempDir())
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, trusted := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r := Snapshot(ctx, dir, trusted, nil)
		cancel()
		out := r.render()
		for _, want := range []string{" M main.go", "?? new.txt", "first commit", "Top level: main.go new.txt sub/"} {
			if !strings.Contains(out, want) {
				t.Errorf("trusted=%v: snapshot lacks %q:\n%s", trusted, want, out)
			}
		}
		if len(r.Notes) > 0 {
			t.Errorf("trusted=%v: notes %q", trusted, r.Notes)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("trusted=%v: the snapshot ran git", trusted)
		}
	}
}

func BenchmarkSnapshotSmallRepository(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first"}} {
		if args[0] == "add" {
			// Older than the index, as a project's files are.
			old := time.Now().Add(-time.Hour)
			for i := 0; i < 20; i++ {
				f := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
				os.WriteFile(f, []byte("package main\n"), 0o644)
				os.Chtimes(f, old, old)
			}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(dir, "f1.go"), []byte("package main // changed\n"), 0o644)
	b.ResetTimer()
	for b.Loop() {
		Snapshot(context.Background(), dir, true, nil)
	}
}
