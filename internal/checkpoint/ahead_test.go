package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// aheadCase is a workspace with a checkpoint reserved, and the files a
// batch writes once they are saved ahead of it: one changed, one made.
type aheadCase struct {
	root, dir string
	s         *Store
	id        string
	before    map[string]node
}

func newAheadCase(t *testing.T, opts Options) *aheadCase {
	c := &aheadCase{root: newWorkspace(t, true), dir: t.TempDir()}
	write(t, c.root, "lib/b.go", "package lib // b\n", 0o644)
	var err error
	c.s, err = Open(c.dir, opts)
	must(t, err)
	t.Cleanup(func() { c.s.Close() })
	c.id = c.s.NewID()
	c.before = snapshot(t, c.root)
	return c
}

func (c *aheadCase) save(t *testing.T) {
	t.Helper()
	paths := []string{filepath.Join(c.root, "main.go"), filepath.Join(c.root, "lib/new.go"), filepath.Join(c.root, ".git/HEAD"), "/elsewhere/x"}
	must(t, c.s.SaveAhead(context.Background(), []string{c.root}, c.id, paths))
}

func (c *aheadCase) writeBatch(t *testing.T) {
	write(t, c.root, "main.go", "package main // edited\n", 0o644)
	write(t, c.root, "lib/new.go", "package lib // new\n", 0o644)
}

// A checkpoint taken while files saved ahead of it are written records
// them as they were before: the scan comes to them after the writes.
func TestSavedAheadFilesAreRecordedAsBefore(t *testing.T) {
	c := newAheadCase(t, Options{Workers: 2})
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	recordHook = func(string) {
		once.Do(func() { close(reached) })
		<-release
	}
	defer func() { recordHook = nil }()
	done := make(chan error, 1)
	go func() {
		_, err := c.s.CheckpointAs(context.Background(), []string{c.root}, c.id)
		done <- err
	}()
	<-reached // the scan holds the store and waits at its first file
	c.save(t)
	c.writeBatch(t)
	if _, err := os.Stat(c.s.aheadPath(c.id)); err != nil {
		t.Fatalf("nothing durable was saved ahead: %v", err)
	}
	close(release)
	must(t, <-done)
	if _, err := os.Stat(c.s.aheadPath(c.id)); !os.IsNotExist(err) {
		t.Errorf("the record saved ahead outlives the stored checkpoint: %v", err)
	}
	after := snapshot(t, c.root)
	_, err := c.s.Restore(context.Background(), c.id)
	must(t, err)
	diffSnap(t, "restored", snapshot(t, c.root), c.before)
	// Once stored, saving ahead does nothing.
	must(t, c.s.SaveAhead(context.Background(), []string{c.root}, c.id, []string{filepath.Join(c.root, "run.sh")}))
	if _, err := os.Stat(c.s.aheadPath(c.id)); !os.IsNotExist(err) {
		t.Errorf("saved ahead of a stored checkpoint: %v", err)
	}
	_ = after
}

// Saved before the scan starts, with a change tracker: the files were
// written before their directories were watched, and the next checkpoint
// records them as written all the same.
func TestSavedAheadBeforeTheScanWithTracking(t *testing.T) {
	c := newAheadCase(t, Options{Track: true})
	c.save(t)
	c.writeBatch(t)
	ctx := context.Background()
	_, err := c.s.CheckpointAs(ctx, []string{c.root}, c.id)
	must(t, err)
	m, err := c.s.Load(c.id)
	must(t, err)
	if holdsPath(m, "lib/new.go") {
		t.Errorf("the checkpoint holds lib/new.go, made after it was saved ahead as absent")
	}
	after := snapshot(t, c.root)
	next, err := c.s.Checkpoint(ctx, []string{c.root})
	must(t, err)
	if next.Reused || next.ID == c.id {
		t.Fatalf("the next checkpoint saw no change: %+v", next)
	}
	_, err = c.s.Restore(ctx, c.id)
	must(t, err)
	diffSnap(t, "restored to the first", snapshot(t, c.root), c.before)
	_, err = c.s.Restore(ctx, next.ID)
	must(t, err)
	diffSnap(t, "restored to the next", snapshot(t, c.root), after)
}

// ply killed after saving ahead and writing, before the checkpoint is
// stored: a restore to it, from a new process, puts back the files saved
// and leaves every other one as it is, and can be undone.
func TestSavedAheadSurvivesACrash(t *testing.T) {
	c := newAheadCase(t, Options{})
	// Two older checkpoints, the first of which a prune removes, with
	// its contents: not main.go's as saved ahead, which no manifest
	// names.
	ctx := context.Background()
	_, err := c.s.Checkpoint(ctx, []string{c.root})
	must(t, err)
	write(t, c.root, "run.sh", "#!/bin/sh\necho\n", 0o755)
	write(t, c.root, "lib/a.go", "package lib // a\n", 0o644) // not a delta: the first can go
	_, err = c.s.Checkpoint(ctx, []string{c.root})
	must(t, err)
	cutoff := time.Now()
	write(t, c.root, "main.go", "package main // before the batch\n", 0o644)
	c.before = snapshot(t, c.root)
	c.id = c.s.NewID()
	c.save(t)
	c.writeBatch(t)
	write(t, c.root, "lib/b.go", "package lib // the user's own edit\n", 0o644)
	want := snapshot(t, c.root)
	want["main.go"] = c.before["main.go"]
	delete(want, "lib/new.go")
	changed := snapshot(t, c.root)

	s2, err := Open(c.dir, Options{}) // the first Store never stores it
	must(t, err)
	if n, err := s2.Prune(cutoff); n != 1 || err != nil {
		t.Fatalf("prune: %d %v", n, err)
	}
	res, err := s2.Restore(ctx, c.id)
	must(t, err)
	if !res.Partial {
		t.Errorf("the restore does not say it was partial: %+v", res)
	}
	diffSnap(t, "restored", snapshot(t, c.root), want)
	_, err = s2.Restore(ctx, res.Undo)
	must(t, err)
	diffSnap(t, "undone", snapshot(t, c.root), changed)
}

func holdsPath(m *Manifest, rel string) bool {
	for _, e := range m.Entries {
		if e.Rel == rel {
			return true
		}
	}
	return false
}
