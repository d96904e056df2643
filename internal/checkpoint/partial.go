package checkpoint

import "errors"

// LoadOrSavedAhead returns checkpoint id as a restore to it would make
// the state cur. A stored checkpoint is returned as Load returns it. One
// never stored whole (ply stopped while taking it), but ahead of which
// files were saved, is cur with those files as they were saved and the
// ones saved as absent left out, and partial is true: only those files
// can be compared with it or restored from it. ErrNotFound when it is
// neither.
func (s *Store) LoadOrSavedAhead(id string, cur *Manifest) (m *Manifest, partial bool, err error) {
	m, err = s.Load(id)
	if !errors.Is(err, ErrNotFound) {
		return m, false, err
	}
	a, aerr := s.loadAhead(id)
	if aerr != nil {
		return nil, false, err
	}
	return overAhead(cur, a), true, nil
}
