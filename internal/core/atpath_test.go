//go:build unix

package core

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

func TestExpandAtPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n", 0o644)
	writeFile(t, filepath.Join(dir, ".gitignore"), "secret.env\n", 0o644)
	writeFile(t, filepath.Join(dir, "secret.env"), "TOKEN=x\n", 0o644)
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("y", maxAtFile+1), 0o644)
	outside := filepath.Join(t.TempDir(), "out.txt")
	writeFile(t, outside, "outside\n", 0o644)
	if err := os.WriteFile(filepath.Join(dir, "bin"), []byte{0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := expandAtPaths("look at @main.go, @secret.env @big.txt @bin @"+outside+" and mail me@example.com", ws)
	for _, want := range []string{"--- Content from @main.go ---\npackage main\n--- End of @main.go ---",
		"@secret.env is ignored", "@big.txt is", "@bin is a binary"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TOKEN=x") || strings.Contains(got, "outside\n") {
		t.Errorf("ignored or outside content leaked:\n%s", got)
	}
	if p := "no references here"; expandAtPaths(p, ws) != p {
		t.Error("a prompt without references must be unchanged")
	}
}

// An @path is read only when its real path is a regular file inside the
// workspace; anything else is named in a note, and nothing blocks.
func TestExpandAtPathsRefusesLinksPipesAndPseudoFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc and named pipes")
	}
	t.Setenv("PLY_TEST_SECRET", "sk-in-the-environment")
	dir, elsewhere := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(elsewhere, "key"), "a private key\n", 0o644)
	for link, target := range map[string]string{
		"env":  "/proc/self/environ",
		"key":  filepath.Join(elsewhere, "key"),
		"zero": "/dev/zero",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, fifo := range []string{"pipe", ".gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(dir, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	done := make(chan struct{})
	go func() { defer close(done); got = expandAtPaths("see @env @key @zero @pipe", ws) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("expanding @paths blocked on a named pipe")
	}
	for _, want := range []string{
		"[@env was not included: a symbolic link to /proc/self/environ, outside the workspace]",
		"[@key was not included: a symbolic link to " + filepath.Join(elsewhere, "key") + ", outside the workspace]",
		"[@zero was not included: a symbolic link to /dev/zero, outside the workspace]",
		"[@pipe was not included: not a regular file but a named pipe]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sk-in-the-environment") || strings.Contains(got, "private key") {
		t.Fatalf("leaked:\n%s", got)
	}
	// A workspace at / holds /proc, yet its files are the kernel's.
	root, err := tools.NewWorkspace("/")
	if err != nil {
		t.Fatal(err)
	}
	got = expandAtPaths("@/proc/self/environ", root)
	if strings.Contains(got, "sk-in-the-environment") || !strings.Contains(got, "kernel pseudo-file") {
		t.Fatalf("got:\n%s", got)
	}
}
