package checkpoint

import (
	"context"
	"slices"
	"testing"
)

// A checkpoint recorded under a reserved id is stored under it, whether
// or not anything changed, and loads whole.
func TestCheckpointAsStoresUnderTheReservedID(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	roots := []string{root}
	for _, track := range []bool{false, true} {
		s, err := Open(t.TempDir(), Options{Track: track})
		must(t, err)
		defer s.Close()
		id := s.NewID()
		r, err := s.CheckpointAs(ctx, roots, id)
		must(t, err)
		if r.ID != id {
			t.Fatalf("first checkpoint: id %s, want %s", r.ID, id)
		}
		first, err := s.Load(id)
		must(t, err)

		again := s.NewID()
		r, err = s.CheckpointAs(ctx, roots, again)
		must(t, err)
		if r.ID != again || !r.Reused {
			t.Fatalf("unchanged tree: %+v, want id %s, nothing changed", r, again)
		}
		m, err := s.Load(again)
		must(t, err)
		if !slices.EqualFunc(m.Entries, first.Entries, func(a, b Entry) bool { return a.Rel == b.Rel && a.sameContent(&b) }) {
			t.Fatalf("the unchanged checkpoint's entries differ from the first's")
		}
		if m.Parent != "" || m.Depth != 1 {
			t.Fatalf("unchanged checkpoint loaded with parent %q, depth %d: want a delta of depth 1, resolved", m.Parent, m.Depth)
		}
		// An ordinary checkpoint of the same tree reuses the newest.
		r, err = s.Checkpoint(ctx, roots)
		must(t, err)
		if r.ID != again {
			t.Fatalf("unchanged tree after CheckpointAs: id %s, want %s", r.ID, again)
		}

		write(t, root, "main.go", "package main // edited\n", 0o644)
		changed := s.NewID()
		r, err = s.CheckpointAs(ctx, roots, changed)
		must(t, err)
		if r.ID != changed || r.Reused {
			t.Fatalf("changed tree: %+v, want id %s", r, changed)
		}
		if got := Diff(first, mustLoad(t, s, changed)); len(got) != 1 || got[0].Rel != "main.go" {
			t.Fatalf("diff from the first: %v, want main.go", got)
		}
		write(t, root, "main.go", "package main\n", 0o644)
	}
	if _, err := (&Store{}).CheckpointAs(ctx, roots, "../x"); err == nil {
		t.Fatal("CheckpointAs took an id that is not one")
	}
}

func mustLoad(t *testing.T, s *Store, id string) *Manifest {
	t.Helper()
	m, err := s.Load(id)
	must(t, err)
	return m
}
