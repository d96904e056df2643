package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// newFilePerm is the mode of a file the tools create. It is what a typical
// umask of 022 makes of 0666; it is applied explicitly because the
// temporary file starts as 0600.
const newFilePerm os.FileMode = 0o644

// keptModeBits are the bits of an existing file's mode carried over to its
// replacement.
const keptModeBits = os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky

// renameFile is os.Rename; tests swap it to simulate a failing final step.
var renameFile = os.Rename

// writeFileAtomic replaces the contents of path with data so that a reader
// sees either the old file or the new one, never a torn mix, and a crash or
// a full disk leaves the original intact.
//
// It writes a temporary file in the same directory (rename is only atomic
// within one file system), syncs it, gives it the existing file's mode (or
// newFilePerm for a new file) and renames it over path. Missing parent
// directories are created. Symlinks are written through: when path is a
// link, its target is replaced and the link itself stays. It reports
// whether the file existed before.
//
// It goes by path, following links, so it is only for files ply keeps
// outside the workspace (save_memory's); writes inside the workspace go
// through Workspace.writeFile, which cannot be raced out of it.
func writeFileAtomic(path string, data []byte) (existed bool, err error) {
	target, err := realPath(path)
	if err != nil {
		return false, err
	}
	perm := newFilePerm
	switch fi, err := os.Stat(target); {
	case err == nil:
		if fi.IsDir() {
			return false, fmt.Errorf("write %s: is a directory", path)
		}
		if !fi.Mode().IsRegular() {
			// Renaming over a device or FIFO would replace it with a
			// regular file instead of writing to it.
			return false, fmt.Errorf("write %s: not a regular file", path)
		}
		existed = true
		perm = fi.Mode() & keptModeBits
	case errors.Is(err, os.ErrNotExist):
	default:
		return false, fmt.Errorf("write %s: %w", path, err)
	}

	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create parent directories of %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(filepath.Base(target))+"*")
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	// Whatever fails below, the temporary file must not be left behind.
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	// Sync before rename: otherwise a crash can leave the new name
	// pointing at an empty file on some file systems.
	if err = tmp.Sync(); err != nil {
		return false, fmt.Errorf("sync %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return false, fmt.Errorf("chmod %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err = renameFile(tmpName, target); err != nil {
		return false, fmt.Errorf("replace %s: %w", path, err)
	}
	// Make the rename itself durable. Not every platform can sync a
	// directory, and the data is already safe, so a failure is ignored.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return existed, nil
}
