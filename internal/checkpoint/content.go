package checkpoint

import "errors"

// Content returns the saved content of a file entry of a checkpoint
// (what /diff compares), as Restore would write it back.
func (s *Store) Content(e *Entry) ([]byte, error) {
	if e.Kind != KindFile || len(e.Hash) < 3 {
		return nil, errors.New("checkpoint: only a file entry has saved content")
	}
	return s.readBlob(e.Hash, e.Size)
}
