package checkpoint

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Saving ahead. The first checkpoint of a session is taken in the
// background under a reserved id (NewID, CheckpointAs) and, in a new
// store, reads and copies every file: tens of seconds for a large tree.
// A write that names its files (an edit) needs of it only those files'
// state before the write. SaveAhead records that state first, durably,
// under the same id: the contents are stored and synced, and the entries
// go to manifests/<id>.ahead (a manifest of those paths alone, the paths
// that did not exist as deletions), synced before SaveAhead returns. The
// caller may then write those files while the checkpoint goes on.
//
// The checkpoint records a file saved ahead as it was saved, not as its
// scan finds it, and leaves out a file saved ahead as absent; a scan
// reading a file holds a read lock that SaveAhead waits for, so that a
// file is either read by the scan before any write to it or recorded
// from what SaveAhead saved. Once the checkpoint is stored, its manifest
// holds all of it and the .ahead record is removed.
//
// A crash before the checkpoint is stored leaves the .ahead record: the
// transcript names a checkpoint that holds only the files saved ahead. A
// restore to it (Restore) puts back those files as they were (deleting
// the ones that did not exist) and leaves every other file as it is:
// nothing else was written by the caller before the checkpoint was
// stored. Pruning keeps the contents such a record names until the
// record itself is past its retention.

// aheadSet is what was saved ahead of one reserved checkpoint.
type aheadSet struct {
	id string
	// mu is held by SaveAhead while it saves, and by a scan of the
	// checkpoint for reading, file by file.
	mu      sync.RWMutex
	roots   []string
	created time.Time
	entries map[aheadKey]Entry // files and links saved
	absent  map[aheadKey]bool  // paths that did not exist
	// scanning: CheckpointAs of id holds the store and is recording;
	// done: it stored the checkpoint, which holds everything.
	scanning, done bool
}

type aheadKey struct {
	root int
	rel  string
}

// saved returns the entry saved for rel under root ri: (nil, true) when
// it was saved as absent, ok false when it was not saved.
func (a *aheadSet) saved(ri int, rel string) (*Entry, bool) {
	k := aheadKey{ri, rel}
	if e, ok := a.entries[k]; ok {
		return &e, true
	}
	return nil, a.absent[k]
}

func (a *aheadSet) empty() bool { return len(a.entries) == 0 && len(a.absent) == 0 }

// aheadFor returns the set of checkpoint id, made when needed.
func (s *Store) aheadFor(id string) *aheadSet {
	s.aheadMu.Lock()
	defer s.aheadMu.Unlock()
	if s.aheadSets == nil {
		s.aheadSets = map[string]*aheadSet{}
	}
	a := s.aheadSets[id]
	if a == nil {
		a = &aheadSet{id: id, created: time.Now(), entries: map[aheadKey]Entry{}, absent: map[aheadKey]bool{}}
		s.aheadSets[id] = a
	}
	return a
}

// SaveAhead records, as part of checkpoint id (reserved with NewID and
// being, or about to be, taken with CheckpointAs for roots), the current
// state of the files at paths (absolute), so that the caller may change
// them before that checkpoint is stored (see the comment above). A path
// outside the roots, or one a checkpoint never records (in .git), is
// left out; a path saved before keeps what was saved first. Nothing is
// done when checkpoint id is already stored. It returns once everything
// it saved is durable; an error means the files must not be changed
// before the checkpoint is stored.
func (s *Store) SaveAhead(ctx context.Context, roots []string, id string, paths []string) error {
	if !validID(id) {
		return fmt.Errorf("checkpoint %q: not a checkpoint id", id)
	}
	a := s.aheadFor(id)
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		a.mu.Lock()
		if a.done || s.holds(id) {
			a.mu.Unlock()
			return nil
		}
		if a.scanning {
			// The checkpoint holds the store's lock until it has
			// seen this save end.
			defer a.mu.Unlock()
			return s.saveAhead(a, roots, paths)
		}
		a.mu.Unlock()
		if s.mu.TryLock() {
			defer s.mu.Unlock()
			unlock, err := s.lock(ctx)
			if err != nil {
				return err
			}
			defer unlock()
			a.mu.Lock()
			defer a.mu.Unlock()
			if s.holds(id) {
				return nil
			}
			return s.saveAhead(a, roots, paths)
		}
		// Another checkpoint, a restore or a prune holds the store:
		// this one's scan may be about to start.
		select {
		case <-ctx.Done():
			return fmt.Errorf("checkpoint: save ahead: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}

// saveAhead saves paths into a, which the caller holds with the store.
func (s *Store) saveAhead(a *aheadSet, roots []string, paths []string) error {
	if a.roots == nil {
		a.roots = slices.Clone(roots)
	} else if !slices.Equal(a.roots, roots) {
		return fmt.Errorf("checkpoint %s: saved ahead under other roots", a.id)
	}
	entries, absent := map[aheadKey]Entry{}, map[aheadKey]bool{}
	s.packs.stale()
	var sw scanWorker
	now := time.Now()
	for _, p := range paths {
		ri, rel, ok := relUnder(roots, p)
		if !ok {
			continue
		}
		k := aheadKey{ri, rel}
		if _, ok := a.saved(ri, rel); ok {
			continue
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			absent[k] = true
			continue
		case err != nil:
			return fmt.Errorf("checkpoint: save %s ahead: %w", p, err)
		case fi.IsDir():
			continue // not written: a write to it fails
		}
		e, _, err := s.recordStat(ri, rel, p, fi, nil, now, &sw)
		if err != nil {
			return err
		}
		if e == nil {
			return fmt.Errorf("checkpoint: save %s ahead: %s", p, strings.Join(sw.problems, "; "))
		}
		entries[k] = *e
	}
	if len(entries) == 0 && len(absent) == 0 {
		return nil
	}
	m := &Manifest{ID: a.id, Created: a.created, Roots: a.roots}
	for k, e := range a.entries {
		entries[k] = e
	}
	for k := range a.absent {
		absent[k] = true
	}
	for _, e := range entries {
		m.Entries = append(m.Entries, e)
	}
	for k := range absent {
		m.Deleted = append(m.Deleted, Entry{Root: k.root, Rel: k.rel})
	}
	m.Entries = sortEntries(m.Entries)
	slices.SortFunc(m.Deleted, func(x, y Entry) int { return entryKey(&x, &y) })
	if err := s.writeManifestFile(s.aheadPath(a.id), m, sw.newBlobs); err != nil {
		return err
	}
	a.entries, a.absent = entries, absent
	return nil
}

// relUnder returns the root of roots that p lies under and p relative to
// it, slash-separated; ok is false when p is under none or is a path a
// checkpoint never records.
func relUnder(roots []string, p string) (int, string, bool) {
	p = filepath.Clean(p)
	for i, r := range roots {
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel = filepath.ToSlash(rel); validRel(rel) {
			return i, rel, true
		}
		return 0, "", false
	}
	return 0, "", false
}

func (s *Store) aheadPath(id string) string { return filepath.Join(s.dir, "manifests", id+".ahead") }

// beginAhead is called by CheckpointAs of id, holding the store: the
// scan reads what was saved ahead from here on.
func (s *Store) beginAhead(id string) {
	a := s.aheadFor(id)
	a.mu.Lock()
	a.scanning = true
	a.mu.Unlock()
	s.ahead = a
}

// endAhead is called when CheckpointAs of id ends, stored or not: a
// stored checkpoint holds everything saved ahead, and the paths saved
// are looked at again by the next checkpoint, whose change tracker may
// not have seen them written (they were written before their directory
// was watched, or the scan recorded them as saved).
func (s *Store) endAhead(stored bool) {
	a := s.ahead
	s.ahead = nil
	a.mu.Lock()
	defer a.mu.Unlock()
	a.scanning = false
	if !stored {
		return
	}
	a.done = true
	os.Remove(s.aheadPath(a.id))
	s.aheadMu.Lock()
	delete(s.aheadSets, a.id)
	s.aheadMu.Unlock()
	if a.empty() {
		return
	}
	if s.recheck == nil {
		s.recheck = map[trackedDir]bool{}
	}
	for _, k := range slices.Concat(slices.Collect(maps.Keys(a.entries)), slices.Collect(maps.Keys(a.absent))) {
		s.recheck[trackedDir{k.root, parentDir(k.rel)}] = false
		if s.cache != nil {
			if e := s.cache.lookup(k.root, k.rel); e != nil {
				e.racy = true // its stat is from before the write
			}
		}
	}
}

// writeManifestFile writes m, compressed, durably at path, naming it once
// the new contents blobs are synced too. It is always compressed:
// loadAhead, here and in earlier versions, reads nothing else.
func (s *Store) writeManifestFile(path string, m *Manifest, blobs []string) error {
	data, err := deflate(m.encode())
	if err != nil {
		return err
	}
	return writeDurableAfter(path, data, s.blobSync(blobs))
}

// loadAhead reads the record of what was saved ahead of checkpoint id.
func (s *Store) loadAhead(id string) (*Manifest, error) {
	if !validID(id) {
		return nil, fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	data, err := os.ReadFile(s.aheadPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load %s: %w", id, err)
	}
	if data, err = io.ReadAll(flate.NewReader(bytes.NewReader(data))); err != nil {
		return nil, fmt.Errorf("checkpoint: load %s: %w", id, err)
	}
	m, err := parseManifest(id, data)
	if err != nil {
		return nil, err
	}
	if m.Parent != "" {
		return nil, fmt.Errorf("%w: checkpoint %s: a record saved ahead names a parent", errManifest, id)
	}
	return m, nil
}

// overAhead returns the target of a restore to a checkpoint that only
// saved files ahead (a): cur, the state now, with those files as saved
// and the paths saved as absent removed.
func overAhead(cur, a *Manifest) *Manifest {
	drop := map[aheadKey]bool{}
	for _, e := range slices.Concat(a.Entries, a.Deleted) {
		drop[aheadKey{e.Root, e.Rel}] = true
	}
	t := &Manifest{ID: a.ID, Created: a.Created, Roots: cur.Roots}
	for _, e := range cur.Entries {
		if !drop[aheadKey{e.Root, e.Rel}] {
			t.Entries = append(t.Entries, e)
		}
	}
	t.Entries = append(t.Entries, a.Entries...)
	slices.SortFunc(t.Entries, func(x, y Entry) int { return entryKey(&x, &y) })
	return t
}

// aheadIDs returns the ids of the .ahead records in the store.
func (s *Store) aheadIDs() []string {
	ents, _ := os.ReadDir(filepath.Join(s.dir, "manifests"))
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".ahead"); ok && validID(id) {
			ids = append(ids, id)
		}
	}
	return ids
}
