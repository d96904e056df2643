package checkpoint

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
)

// Verify checks the checkpoint id whole, as a restore to it would before
// its first change: its manifest (and every delta under it) loads, and
// the saved content of each file entry is in the store with the size and
// SHA-256 the manifest records. Every problem found is returned, joined;
// an *ObjectError for each missing or damaged content.
func (s *Store) Verify(id string) error {
	m, err := s.Load(id)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", id, err)
	}
	defer s.packs.dropCache()
	// In the order the contents are stored, so that each block of a pack
	// is decompressed once.
	type want struct {
		e  *Entry
		at packLoc
	}
	var ws []want
	for i := range m.Entries {
		if e := &m.Entries[i]; e.Kind == KindFile {
			ws = append(ws, want{e, s.packs.locate(e.Hash)})
		}
	}
	slices.SortStableFunc(ws, func(a, b want) int { return a.at.compare(b.at) })
	var errs []error
	for _, w := range ws {
		e := w.e
		path := e.Rel
		if e.Root >= 0 && e.Root < len(m.Roots) {
			path = filepath.Join(m.Roots[e.Root], filepath.FromSlash(e.Rel))
		}
		if _, err := s.readVerified(path, e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
