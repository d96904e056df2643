//go:build unix

package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// renameAt is unix.Renameat; tests swap it to simulate a failing final step.
var renameAt = unix.Renameat

// writeBeneath replaces root/rel with data without following a symbolic
// link below root. A link on the way is reported as a *linkMet.
func writeBeneath(root, rel string, data []byte) (bool, error) {
	if rel == "." {
		return false, fmt.Errorf("write %s: is a directory", root)
	}
	dirRel, name := filepath.Split(rel)
	dirRel = filepath.Clean(dirRel)
	dirfd, err := openDirBeneath(root, dirRel)
	if err != nil {
		if l, ok := err.(*linkMet); ok {
			l.rest = filepath.Join(l.rest, name)
		}
		return false, err
	}
	defer unix.Close(dirfd)
	return replaceAt(dirfd, filepath.Join(root, dirRel), name, data)
}

// openDirBeneath opens root/rel as a directory, creating what is missing,
// with no symbolic link followed below root.
func openDirBeneath(root, rel string) (int, error) {
	rootfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open workspace root %s: %w", root, &os.PathError{Op: "open", Path: root, Err: err})
	}
	if rel == "." {
		return rootfd, nil
	}
	// The fast path resolves the whole directory in one call; when it
	// fails for any reason (a missing directory, a link, an old kernel)
	// the walk below does the work and says precisely what is wrong.
	if fd, err := openat2Beneath(rootfd, rel); err == nil {
		unix.Close(rootfd)
		return fd, nil
	}
	return walkBeneath(rootfd, root, strings.Split(rel, string(filepath.Separator)), true)
}

// walkBeneath opens comps one at a time under fd, which it takes over,
// refusing to follow a symbolic link and, with create, creating missing
// directories.
func walkBeneath(fd int, root string, comps []string, create bool) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for i, c := range comps {
		at := filepath.Join(root, filepath.Join(comps[:i+1]...))
		next, err := unix.Openat(fd, c, flags, 0)
		if err == unix.ENOENT && create {
			if err := unix.Mkdirat(fd, c, 0o755); err != nil && err != unix.EEXIST {
				unix.Close(fd)
				return -1, fmt.Errorf("create directory %s: %w", at, &os.PathError{Op: "mkdir", Path: at, Err: err})
			}
			next, err = unix.Openat(fd, c, flags, 0)
		}
		if err != nil {
			var l *linkMet
			if target, ok := readLinkAt(fd, c); ok {
				l = &linkMet{at: at, target: target, rest: filepath.Join(comps[i+1:]...)}
			}
			unix.Close(fd)
			if l != nil {
				return -1, l
			}
			if err == unix.ENOTDIR {
				return -1, fmt.Errorf("open directory %s: not a directory", at)
			}
			return -1, fmt.Errorf("open directory %s: %w", at, &os.PathError{Op: "open", Path: at, Err: err})
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// readLinkAt returns the target of name under dirfd when it is a symbolic
// link.
func readLinkAt(dirfd int, name string) (string, bool) {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return "", false
	}
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", false
	}
	return string(buf[:n]), true
}

// replaceAt replaces name in the directory dirfd (whose path is dir) with
// a file holding data: a temporary file created in that directory, synced,
// given the old file's mode, then renamed over name.
func replaceAt(dirfd int, dir, name string, data []byte) (existed bool, err error) {
	path := filepath.Join(dir, name)
	perm := newFilePerm
	var st unix.Stat_t
	switch err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == unix.ENOENT:
	case err != nil:
		return false, fmt.Errorf("write %s: %w", path, &os.PathError{Op: "stat", Path: path, Err: err})
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		if target, ok := readLinkAt(dirfd, name); ok {
			return false, &linkMet{at: path, target: target}
		}
		return false, fmt.Errorf("write %s: cannot read the symbolic link", path)
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return false, fmt.Errorf("write %s: is a directory", path)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		// Renaming over a device or FIFO would replace it with a
		// regular file instead of writing to it.
		return false, fmt.Errorf("write %s: not a regular file", path)
	default:
		existed = true
		perm = unixPerm(uint32(st.Mode))
	}

	tmp, f, err := createTempAt(dirfd, dir, name)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	// Whatever fails below, the temporary file must not be left behind.
	defer func() {
		if err != nil {
			f.Close()
			unix.Unlinkat(dirfd, tmp, 0)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	// Sync before rename: otherwise a crash can leave the new name
	// pointing at an empty file on some file systems.
	if err = f.Sync(); err != nil {
		return false, fmt.Errorf("sync %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return false, fmt.Errorf("chmod %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err = renameAt(dirfd, tmp, dirfd, name); err != nil {
		return false, fmt.Errorf("replace %s: %w", path, err)
	}
	// Make the rename durable; the data is already safe, so a file
	// system that cannot sync a directory is not an error.
	unix.Fsync(dirfd)
	return existed, nil
}

// createTempAt creates a new, empty file next to name in dirfd, never
// through a link, and returns its name and the open file.
func createTempAt(dirfd int, dir, name string) (string, *os.File, error) {
	const flags = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for range 10 {
		tmp := TempName(name)
		fd, err := unix.Openat(dirfd, tmp, flags, 0o600)
		if err == unix.EEXIST {
			continue
		}
		if err != nil {
			return "", nil, &os.PathError{Op: "create", Path: filepath.Join(dir, tmp), Err: err}
		}
		return tmp, os.NewFile(uintptr(fd), filepath.Join(dir, tmp)), nil
	}
	return "", nil, errors.New("cannot pick an unused temporary file name")
}

// unixPerm turns a stat mode into the os.FileMode bits a replacement keeps.
func unixPerm(mode uint32) os.FileMode {
	perm := os.FileMode(mode & 0o777)
	if mode&unix.S_ISUID != 0 {
		perm |= os.ModeSetuid
	}
	if mode&unix.S_ISGID != 0 {
		perm |= os.ModeSetgid
	}
	if mode&unix.S_ISVTX != 0 {
		perm |= os.ModeSticky
	}
	return perm
}
