//go:build unix

package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestOpenDirBeneath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDirBeneath(root, "a/b", false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory without create: %v, want not exist", err)
	}
	fd, err := OpenDirBeneath(root, "a/b", true)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	unix.Close(fd)
	if fi, err := os.Stat(filepath.Join(root, "a", "b")); err != nil || !fi.IsDir() {
		t.Errorf("a/b not created: %v", err)
	}
	for _, create := range []bool{false, true} {
		if fd, err := OpenDirBeneath(root, "out/x", create); err == nil {
			unix.Close(fd)
			t.Errorf("create=%v: went through a link to outside", create)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("created outside: %v", ents)
	}
}
