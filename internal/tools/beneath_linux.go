package tools

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel answered ENOSYS (before Linux 5.6), or
// EPERM (a container's seccomp profile that predates the call): the walk
// then does every write, without a failed call first.
var noOpenat2 atomic.Bool

// openat2Beneath opens rel, a directory below dirfd, in one call that
// refuses to leave dirfd or follow any symbolic link.
func openat2Beneath(dirfd int, rel string) (int, error) {
	if noOpenat2.Load() {
		return -1, unix.ENOSYS
	}
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err == unix.ENOSYS || err == unix.EPERM {
		noOpenat2.Store(true)
	}
	return fd, err
}
