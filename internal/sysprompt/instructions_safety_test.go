//go:build unix

package sysprompt

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// finishes runs f and fails the test if it has not returned in a minute:
// a read that blocks on a named pipe never would.
func finishes(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s blocked", what)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A repository's instruction files may be links to anything: only
// regular files inside the project are read, and each one passed over is
// named on the warning channel with the reason.
func TestInstructionsOnlyRegularFilesInsideTheProject(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc and named pipes")
	}
	t.Setenv("PLY_TEST_SECRET", "sk-in-the-environment")
	repo, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(elsewhere, "secret"), "a private key")
	symlink(t, "/proc/self/environ", filepath.Join(repo, "AGENTS.md"))
	symlink(t, filepath.Join(elsewhere, "secret"), filepath.Join(repo, "CLAUDE.md"))
	if err := syscall.Mkfifo(filepath.Join(repo, "PLY.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, "/dev/zero", filepath.Join(repo, "QWEN.md"))
	sub := filepath.Join(repo, "sub")
	write(t, filepath.Join(sub, "AGENTS.md"), "sub agents")
	symlink(t, "AGENTS.md", filepath.Join(sub, "CLAUDE.md")) // inside: fine, read once

	var warn bytes.Buffer
	var got []Instruction
	finishes(t, "loading instruction files", func() { got = LoadInstructions("", sub, &warn) })
	var contents []string
	for _, i := range got {
		contents = append(contents, i.Content)
	}
	if strings.Join(contents, "|") != "sub agents" {
		t.Fatalf("got %q", contents)
	}
	for _, want := range []string{
		"AGENTS.md: skipped: a symbolic link to /proc/self/environ, outside the project",
		"CLAUDE.md: skipped: a symbolic link to " + filepath.Join(elsewhere, "secret") + ", outside the project",
		"PLY.md: skipped: not a regular file but a named pipe",
		"QWEN.md: skipped: a symbolic link to /dev/zero, outside the project",
	} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, warn.String())
		}
	}
}

// The user's own file may live in ply's home or, through a link, in the
// user's home directory (dotfiles), but not anywhere else.
func TestUserInstructionFileStaysInTheHomeDirectories(t *testing.T) {
	userHome, elsewhere, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", userHome)
	plyHome := filepath.Join(userHome, ".ply")
	write(t, filepath.Join(userHome, "dotfiles", "PLY.md"), "from dotfiles")
	write(t, filepath.Join(elsewhere, "other"), "not the user's")
	if err := os.MkdirAll(plyHome, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(userHome, "dotfiles", "PLY.md"), filepath.Join(plyHome, "PLY.md"))
	if got := LoadInstructions(plyHome, cwd, nil); len(got) != 1 || got[0].Content != "from dotfiles" {
		t.Fatalf("got %+v", got)
	}
	os.Remove(filepath.Join(plyHome, "PLY.md"))
	symlink(t, filepath.Join(elsewhere, "other"), filepath.Join(plyHome, "PLY.md"))
	var warn bytes.Buffer
	if got := LoadInstructions(plyHome, cwd, &warn); len(got) != 0 {
		t.Fatalf("read %+v through a link out of the home directories", got)
	}
	if !strings.Contains(warn.String(), "PLY.md: skipped: a symbolic link to "+filepath.Join(elsewhere, "other")) {
		t.Fatalf("warning: %q", warn.String())
	}
}

// A huge instruction file costs the cap, not its size.
func TestInstructionFileReadUpToTheCap(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("start "); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := LoadInstructions("", dir, nil)
	runtime.ReadMemStats(&after)
	if len(got) != 1 || !strings.HasPrefix(got[0].Content, "start ") || !strings.Contains(got[0].Content, "capped") {
		t.Fatalf("got %d files", len(got))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("loading a 100 MiB instruction file allocated %d bytes", alloc)
	}
}

// The branch named in the prompt comes from .git/HEAD, which may be a
// named pipe or a link to the environment: neither blocks nor leaks.
func TestGitBranchReadsOnlyARegularHead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc and named pipes")
	}
	t.Setenv("PLY_TEST_SECRET", "sk-in-the-environment")
	dir := t.TempDir()
	git := filepath.Join(dir, ".git")
	if err := os.Mkdir(git, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "/proc/self/environ", filepath.Join(git, "HEAD"))
	if br := gitBranch(dir); br != "" {
		t.Fatalf("branch %q from /proc/self/environ", br)
	}
	os.Remove(filepath.Join(git, "HEAD"))
	if err := syscall.Mkfifo(filepath.Join(git, "HEAD"), 0o644); err != nil {
		t.Fatal(err)
	}
	finishes(t, "reading a named pipe as .git/HEAD", func() { gitBranch(dir) })
}
