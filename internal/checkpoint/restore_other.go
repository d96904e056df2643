//go:build !unix

package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// Where there are no directory descriptors to write beneath, a restore
// checks each directory by name just before it writes: a link swapped in
// between the check and the write is not caught on these platforms.

// isRealDir reports whether rel (slash) is a directory under root
// reached through no symbolic link.
func isRealDir(root, rel string) bool {
	dir := root
	for _, c := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, c)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// removeEntry deletes rel under root, refusing to go through a link.
func removeEntry(root, rel string) error {
	if err := checkParents(root, rel); err != nil {
		return err
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: restore: delete %s: %w", p, err)
	}
	return nil
}

// removeEmptyDirs removes the directories above rel that its deletion
// left empty, up to the first that keep holds or that is not empty.
func removeEmptyDirs(root, rel string, keep func(dir string) bool) {
	for d := path.Dir(rel); d != "." && !keep(d); d = path.Dir(d) {
		if os.Remove(filepath.Join(root, filepath.FromSlash(d))) != nil {
			break // not empty: ignored files live there
		}
	}
}

// writeEntry puts e in place under root, replacing what is there.
func (s *Store) writeEntry(root string, e *Entry) error {
	p := filepath.Join(root, filepath.FromSlash(e.Rel))
	if err := mkdirs(root, path.Dir(e.Rel)); err != nil {
		return err
	}
	if beforeWrite != nil {
		beforeWrite(path.Dir(e.Rel))
	}
	tmp := filepath.Join(filepath.Dir(p), tools.TempName(path.Base(e.Rel)))
	var err error
	if e.Kind == KindLink {
		err = os.Symlink(e.Target, tmp)
	} else {
		err = s.writeTemp(tmp, p, e)
	}
	if err == nil {
		if err = os.Rename(tmp, p); err != nil {
			os.Remove(tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("checkpoint: restore %s: %w", p, err)
	}
	return nil
}

// writeTemp creates tmp with e's content and mode, checked again as it is
// read: e is the entry of file.
func (s *Store) writeTemp(tmp, file string, e *Entry) error {
	data, err := s.readToRestore(file, e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if err := fillAndClose(f, data, e.Mode); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// mkdirs creates the directory rel under root one component at a time,
// refusing to go through a symbolic link or a file, so that a restore
// never writes outside the root.
func mkdirs(root, rel string) error {
	if rel == "." {
		return nil
	}
	dir := root
	for _, c := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, c)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("checkpoint: restore: create %s: %w", dir, err)
			}
		case err != nil:
			return fmt.Errorf("checkpoint: restore: %w", err)
		case !fi.IsDir():
			return fmt.Errorf("checkpoint: restore: %s is in the way (not a directory)", dir)
		}
	}
	return nil
}

// checkParents refuses a path whose directories under root are not all
// real directories.
func checkParents(root, rel string) error {
	dir := root
	d := path.Dir(rel)
	if d == "." {
		return nil
	}
	for _, c := range strings.Split(d, "/") {
		dir = filepath.Join(dir, c)
		fi, err := os.Lstat(dir)
		if err != nil {
			return fmt.Errorf("checkpoint: restore: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("checkpoint: restore: %s is not a directory", dir)
		}
	}
	return nil
}
