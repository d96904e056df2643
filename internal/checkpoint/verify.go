package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// ErrObjectMissing and ErrObjectCorrupt are what an ObjectError says of
// a saved content: not in the store, or not what its hash names.
var (
	ErrObjectMissing = errors.New("its saved content is missing from the store")
	ErrObjectCorrupt = errors.New("its saved content is damaged")
)

// ObjectError is the content of a file a restore would write, missing
// or damaged. Restore checks them all before its first change.
type ObjectError struct {
	Path string // the file the content is for, absolute
	Hash string // the content's SHA-256, as the checkpoint records it
	Err  error  // ErrObjectMissing or ErrObjectCorrupt, wrapped with detail
}

func (e *ObjectError) Error() string {
	return fmt.Sprintf("checkpoint: cannot restore %s: %v (object %s)", e.Path, e.Err, e.Hash)
}

func (e *ObjectError) Unwrap() error { return e.Err }

// readVerified reads the saved content of e, the entry of the file at
// path, and checks its size and hash.
func (s *Store) readVerified(path string, e *Entry) ([]byte, error) {
	data, err := s.readContent(e.Hash, e.Size)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &ObjectError{Path: path, Hash: e.Hash, Err: ErrObjectMissing}
	case errors.Is(err, errDecode) || errors.Is(err, errPack):
		return nil, &ObjectError{Path: path, Hash: e.Hash, Err: fmt.Errorf("%w: %v", ErrObjectCorrupt, err)}
	case err != nil:
		return nil, fmt.Errorf("checkpoint: read the saved content of %s (object %s): %w", path, e.Hash, err)
	}
	return data, nil
}

// readToRestore is readVerified for a restore, which holds s.mu: the
// contents verify checked are not read again.
func (s *Store) readToRestore(path string, e *Entry) ([]byte, error) {
	if data, ok := s.checked[e.Hash]; ok && int64(len(data)) == e.Size {
		return data, nil
	}
	return s.readVerified(path, e)
}

// checkedBudget bounds the contents a restore keeps, once checked, for
// writing them: beyond it they are read (and checked) again.
const checkedBudget = 64 << 20

// verify checks, before a restore changes anything, that the content of
// every file it will write is in the store and intact. It reads them in
// the order they are stored, so that a block of a pack is decompressed
// once, and keeps them (s.checked, up to checkedBudget) for the writes;
// the caller clears s.checked.
func (s *Store) verify(target *Manifest, p *restorePlan, leave func(root string, e *Entry) bool) error {
	type want struct {
		e   *Entry
		at  packLoc
		abs string
	}
	var ws []want
	for _, w := range p.writes {
		e := w[0]
		root := target.Roots[e.Root]
		if e.Kind != KindFile || leave(root, e) {
			continue
		}
		ws = append(ws, want{e, s.packs.locate(e.Hash), filepath.Join(root, filepath.FromSlash(e.Rel))})
	}
	slices.SortStableFunc(ws, func(a, b want) int { return a.at.compare(b.at) })
	s.checked = map[string][]byte{}
	kept := 0
	for _, w := range ws {
		data, err := s.readVerified(w.abs, w.e)
		if err != nil {
			return err
		}
		if kept+len(data) <= checkedBudget {
			s.checked[w.e.Hash], kept = data, kept+len(data)
		}
	}
	return nil
}
