package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// TestTwoStoresOnOneDirectory has two Stores (as two ply processes would)
// checkpoint, restore and prune the same store at once; afterwards every
// checkpoint must load and every content it names must be there.
func TestTwoStoresOnOneDirectory(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	dir := t.TempDir()
	a, err := Open(dir, Options{})
	must(t, err)
	b, err := Open(dir, Options{Track: true})
	must(t, err)
	defer b.Close()
	first, err := a.Checkpoint(ctx, []string{root})
	must(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for w, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				os.WriteFile(fmt.Sprintf("%s/w%d-%d.txt", root, w, i%7), []byte(fmt.Sprint(w, i)), 0o644)
				if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 40 {
			if i%10 == 5 {
				_, err := b.Restore(ctx, first.ID)
				if _, serr := os.Stat(b.manifestPath(first.ID)); errors.Is(err, ErrNotFound) && serr != nil {
					err = nil // pruned: a clear error, not a corruption
				}
				if err != nil {
					errs <- err
					return
				}
			}
			if _, err := a.Prune(time.Now()); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// One more checkpoint from each, after the last prune.
	for _, s := range []*Store{a, b} {
		os.WriteFile(root+"/last.txt", []byte(fmt.Sprint(s == a)), 0o644)
		_, err := s.Checkpoint(ctx, []string{root})
		must(t, err)
	}
	ids, err := a.IDs()
	must(t, err)
	for _, id := range ids {
		m, err := a.Load(id)
		if err != nil {
			t.Errorf("checkpoint %s: %v", id, err)
			continue
		}
		for _, e := range m.Entries {
			if e.Kind != KindFile {
				continue
			}
			if _, err := os.Stat(a.blobPath(e.Hash)); err != nil {
				t.Errorf("checkpoint %s names %s, whose content is gone", id, e.Rel)
			}
		}
	}
}
