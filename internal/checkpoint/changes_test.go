package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The change records count what Diff counts between any checkpoint of a
// chain and the newest, edits undone included, without a manifest.
func TestChangeCountsMatchDiff(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	roots := []string{root}
	s, err := Open(t.TempDir(), Options{Track: true})
	must(t, err)
	defer s.Close()
	var ids []string
	take := func(reserve bool) {
		t.Helper()
		var r Result
		var err error
		if reserve {
			r, err = s.CheckpointAs(ctx, roots, s.NewID())
		} else {
			r, err = s.Checkpoint(ctx, roots)
		}
		must(t, err)
		ids = append(ids, r.ID)
	}
	take(true)
	write(t, root, "main.go", "package main // one\n", 0o644)
	take(false)
	take(true) // nothing changed, under a reserved id
	write(t, root, "new.txt", "new", 0o644)
	must(t, os.Remove(filepath.Join(root, "run.sh")))
	take(false)
	write(t, root, "main.go", "package main\n", 0o644) // back as it was first
	must(t, os.Chmod(filepath.Join(root, "new.txt"), 0o600))
	must(t, os.Remove(filepath.Join(root, "link")))
	must(t, os.Symlink("lib/a.go", filepath.Join(root, "link")))
	take(false)

	newest := s.Newest()
	if newest != ids[len(ids)-1] {
		t.Fatalf("newest %s, want %s", newest, ids[len(ids)-1])
	}
	got := s.ChangeCounts(append(ids, "0000000000000000-000000"), newest)
	to := mustLoad(t, s, newest)
	for i, id := range ids {
		if want := len(Diff(mustLoad(t, s, id), to)); got[i] != want {
			t.Errorf("checkpoint %d: %d changes counted, Diff has %d", i, got[i], want)
		}
	}
	if got[len(ids)] != -1 {
		t.Errorf("a checkpoint not on the chain: %d, want -1", got[len(ids)])
	}
	// A missing record ends the walk: what lies beyond is unknown.
	must(t, os.Remove(s.changesPath(ids[2])))
	got = s.ChangeCounts(ids[:2], newest)
	if got[0] != -1 || got[1] != -1 {
		t.Errorf("past a missing record: %v, want -1s", got)
	}
}
