//go:build unix

package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/plyhq/ply/internal/tools"
)

// A restore writes and deletes beneath the root through directory
// descriptors opened without following any symbolic link (the file tools'
// way, tools.OpenDirBeneath): a directory swapped for a link while the
// restore runs cannot send a write outside the workspace.

// writeEntry puts e in place under root, replacing what is there.
func (s *Store) writeEntry(root string, e *Entry) error {
	p := filepath.Join(root, filepath.FromSlash(e.Rel))
	dir, name := path.Split(e.Rel)
	dirfd, err := tools.OpenDirBeneath(root, cleanDir(dir), true)
	if err != nil {
		return fmt.Errorf("checkpoint: restore %s: %w", p, err)
	}
	defer unix.Close(dirfd)
	if beforeWrite != nil {
		beforeWrite(path.Dir(e.Rel))
	}
	tmp := tools.TempName(name)
	if e.Kind == KindLink {
		err = unix.Symlinkat(e.Target, dirfd, tmp)
	} else {
		err = s.writeTempAt(dirfd, tmp, p, e)
	}
	if err == nil {
		if err = unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
			unix.Unlinkat(dirfd, tmp, 0)
		}
	}
	if err != nil {
		return fmt.Errorf("checkpoint: restore %s: %w", p, err)
	}
	return nil
}

// writeTempAt creates tmp in dirfd with e's content and mode, checked
// again as it is read: e is the entry of file.
func (s *Store) writeTempAt(dirfd int, tmp, file string, e *Entry) error {
	data, err := s.readToRestore(file, e)
	if err != nil {
		return err
	}
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	if err := fillAndClose(os.NewFile(uintptr(fd), tmp), data, e.Mode); err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return err
	}
	return nil
}

// removeEntry deletes rel under root; already gone is done.
func removeEntry(root, rel string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	dir, name := path.Split(rel)
	dirfd, err := tools.OpenDirBeneath(root, cleanDir(dir), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: restore: delete %s: %w", p, err)
	}
	defer unix.Close(dirfd)
	if err := unix.Unlinkat(dirfd, name, 0); err != nil && err != unix.ENOENT {
		return fmt.Errorf("checkpoint: restore: delete %s: %w", p, err)
	}
	return nil
}

// removeEmptyDirs removes the directories above rel that its deletion
// left empty, up to the first that keep holds or that is not empty.
func removeEmptyDirs(root, rel string, keep func(dir string) bool) {
	for d := path.Dir(rel); d != "." && !keep(d); d = path.Dir(d) {
		parent, name := path.Split(d)
		fd, err := tools.OpenDirBeneath(root, cleanDir(parent), false)
		if err != nil {
			return
		}
		err = unix.Unlinkat(fd, name, unix.AT_REMOVEDIR)
		unix.Close(fd)
		if err != nil {
			return // not empty: ignored files live there
		}
	}
}

// isRealDir reports whether rel (slash) is a directory under root
// reached through no symbolic link.
func isRealDir(root, rel string) bool {
	fd, err := tools.OpenDirBeneath(root, rel, false)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// cleanDir turns the directory part of path.Split into OpenDirBeneath's.
func cleanDir(dir string) string {
	if dir == "" {
		return "."
	}
	return path.Clean(dir)
}
