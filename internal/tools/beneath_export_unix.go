//go:build unix

package tools

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenDirBeneath opens the directory rel (relative, slash-separated; "."
// for root itself) below root and returns its descriptor, for calls
// relative to it (openat, renameat, unlinkat), so that a caller outside
// this package writes beneath root as the file tools do: no symbolic link
// below root is followed, whatever is swapped in meanwhile. A link on the
// way is an error that names it. With create, missing directories are
// made (mode 0755 less the umask); without, a missing one is an error
// satisfying errors.Is(err, fs.ErrNotExist).
func OpenDirBeneath(root, rel string, create bool) (int, error) {
	rel = filepath.FromSlash(rel)
	if create {
		return openDirBeneath(root, rel)
	}
	rootfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil || rel == "." {
		return rootfd, err
	}
	if fd, err := openat2Beneath(rootfd, rel); err == nil {
		unix.Close(rootfd)
		return fd, nil
	}
	return walkBeneath(rootfd, root, strings.Split(rel, string(filepath.Separator)), false)
}
