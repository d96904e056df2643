//go:build unix

package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRestoreNeverWritesThroughASwappedLink swaps a directory of the
// workspace for a symbolic link to a directory outside it at the worst
// moment: after the restore found the directory and before it wrote the
// file. Nothing may land outside.
func TestRestoreNeverWritesThroughASwappedLink(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	outside := t.TempDir()
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	write(t, root, "lib/a.go", "changed", 0o644)
	write(t, root, "lib/b.go", "created", 0o644)
	swapped := false
	beforeWrite = func(rel string) {
		if rel != "lib" || swapped {
			return
		}
		swapped = true
		must(t, os.Rename(filepath.Join(root, "lib"), filepath.Join(root, "lib.moved")))
		must(t, os.Symlink(outside, filepath.Join(root, "lib")))
	}
	t.Cleanup(func() { beforeWrite = nil })
	s.Restore(ctx, first.ID) // may fail: what matters is where it wrote
	if !swapped {
		t.Fatal("the swap never happened")
	}
	ents, err := os.ReadDir(outside)
	must(t, err)
	for _, e := range ents {
		t.Errorf("the restore wrote outside the workspace: %s", e.Name())
	}
}

// TestRestoreReplacesALinkWhereADirectoryWas: a directory replaced by a
// link (to outside) after the checkpoint is recorded as a link, so the
// restore removes the link and makes the directory again.
func TestRestoreReplacesALinkWhereADirectoryWas(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	outside := t.TempDir()
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	want := snapshot(t, root)
	must(t, os.RemoveAll(filepath.Join(root, "lib")))
	must(t, os.Symlink(outside, filepath.Join(root, "lib")))
	_, err = s.Restore(ctx, first.ID)
	must(t, err)
	diffSnap(t, "after restore", snapshot(t, root), want)
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("the restore wrote outside the workspace: %v", ents)
	}
}
