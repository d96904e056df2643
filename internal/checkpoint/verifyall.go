package checkpoint

import (
	"errors"
	"fmt"
	"path/filepath"
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
	var errs []error
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Kind != KindFile {
			continue
		}
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
