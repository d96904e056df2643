//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skipped(t *testing.T, err error, want string) {
	t.Helper()
	var skip *SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Error(), want) {
		t.Fatalf("got %v, want a skip saying %q", err, want)
	}
}

func TestReadWithinReadsAndFollowsLinksInside(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "AGENTS.md"), "be brief")
	if err := os.Symlink("AGENTS.md", filepath.Join(root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	f, err := ReadWithin(filepath.Join(root, "CLAUDE.md"), 100, "the project", root)
	if err != nil || string(f.Data) != "be brief" || f.Truncated {
		t.Fatalf("got %+v, %v", f, err)
	}
	if _, err := ReadWithin(filepath.Join(root, "missing"), 100, "the project", root); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}

func TestReadWithinRefusesLinksOutside(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	secret := filepath.Join(elsewhere, "secret")
	writeFile(t, secret, "the key")
	link := filepath.Join(root, "CLAUDE.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	f, err := ReadWithin(link, 100, "the project", root)
	if f != nil {
		t.Fatalf("read %q through a link outside", f.Data)
	}
	skipped(t, err, "CLAUDE.md: skipped: a symbolic link to "+secret+", outside the project")
	// A directory link on the way counts the same.
	if err := os.Symlink(elsewhere, filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	_, err = ReadWithin(filepath.Join(root, "d", "secret"), 100, "the project", root)
	skipped(t, err, "is outside the project")
}

func TestReadWithinRefusesProcEnviron(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/environ is Linux's")
	}
	root := t.TempDir()
	link := filepath.Join(root, "AGENTS.md")
	if err := os.Symlink("/proc/self/environ", link); err != nil {
		t.Fatal(err)
	}
	_, err := ReadWithin(link, 1<<20, "the project", root)
	skipped(t, err, "AGENTS.md: skipped: a symbolic link to /proc/self/environ, outside the project")
	// Even a root that holds it (a project at /) does not make it a file.
	_, err = ReadWithin(link, 1<<20, "the project", "/")
	skipped(t, err, "kernel pseudo-file")
	_, err = Read("/proc/self/environ", 1<<20)
	skipped(t, err, "kernel pseudo-file")
}

func TestReadRefusesDevicesAndPipesWithoutBlocking(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "PLY.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	// Nobody opens the other end: a blocking open would never return.
	_, err := ReadWithin(fifo, 100, "the project", root)
	skipped(t, err, "PLY.md: skipped: not a regular file but a named pipe")
	_, err = Read(fifo, 100)
	skipped(t, err, "a named pipe")
	if err := os.Symlink("/dev/zero", filepath.Join(root, "zero")); err != nil {
		t.Fatal(err)
	}
	_, err = ReadWithin(filepath.Join(root, "zero"), 100, "the project", "/")
	skipped(t, err, "not a regular file but a device")
	_, err = ReadWithin(root, 100, "the project", root)
	skipped(t, err, "a directory")
}

// A file far larger than the cap costs the cap, not its size.
func TestReadIsCapped(t *testing.T) {
	root := t.TempDir()
	big := filepath.Join(root, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := ReadWithin(big, 32<<10, "the project", root)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != 32<<10 || !got.Truncated || got.Size != 100<<20 {
		t.Fatalf("got %d bytes, truncated %v, size %d", len(got.Data), got.Truncated, got.Size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("reading 32 KiB of a 100 MiB file allocated %d bytes", alloc)
	}
	exact := filepath.Join(root, "exact")
	writeFile(t, exact, "12345")
	if got, err := Read(exact, 5); err != nil || string(got.Data) != "12345" || got.Truncated {
		t.Fatalf("a file of exactly the cap: %+v, %v", got, err)
	}
}
