package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()

	t.Run("new file in new directories", func(t *testing.T) {
		path := filepath.Join(dir, "x", "y", "f.txt")
		existed, err := writeFileAtomic(path, []byte("hello"))
		if err != nil || existed {
			t.Fatalf("existed=%v err=%v", existed, err)
		}
		if got := ftReadFile(t, path); got != "hello" {
			t.Errorf("content %q", got)
		}
	})

	t.Run("replace keeps mode", func(t *testing.T) {
		path := filepath.Join(dir, "script.sh")
		ftWriteFile(t, path, "#!/bin/sh\n")
		if err := os.Chmod(path, 0o755|os.ModeSetgid); err != nil {
			t.Fatal(err)
		}
		existed, err := writeFileAtomic(path, []byte("#!/bin/sh\necho hi\n"))
		if err != nil || !existed {
			t.Fatalf("existed=%v err=%v", existed, err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&keptModeBits != 0o755|os.ModeSetgid {
			t.Errorf("mode %v, want 0755 with setgid", fi.Mode())
		}
	})

	t.Run("failed rename keeps original", func(t *testing.T) {
		path := filepath.Join(dir, "keep.txt")
		ftWriteFile(t, path, "original")
		failRename(t)
		if _, err := writeFileAtomic(path, []byte("new")); err == nil || !strings.Contains(err.Error(), "simulated") {
			t.Fatalf("err = %v, want the rename failure", err)
		}
		if got := ftReadFile(t, path); got != "original" {
			t.Errorf("original damaged: %q", got)
		}
	})

	t.Run("directory refused", func(t *testing.T) {
		sub := filepath.Join(dir, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := writeFileAtomic(sub, []byte("x")); err == nil {
			t.Fatal("writing over a directory succeeded")
		}
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			t.Error("directory damaged")
		}
	})

	t.Run("parent is a file", func(t *testing.T) {
		ftWriteFile(t, filepath.Join(dir, "plain"), "p")
		if _, err := writeFileAtomic(filepath.Join(dir, "plain", "child"), []byte("x")); err == nil {
			t.Fatal("write under a regular file succeeded")
		}
	})

	ftWantNoTempFiles(t, dir)
}
