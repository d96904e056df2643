package safefile

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel answered ENOSYS (before Linux 5.6) or
// EPERM (a seccomp profile that predates the call).
var noOpenat2 atomic.Bool

const openFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NOCTTY

// openResolved opens real, a path with every symbolic link resolved, and
// fails with ELOOP if a link has been swapped in anywhere along it since.
// Without openat2 only the last component is checked.
func openResolved(real string) (int, error) {
	if !noOpenat2.Load() {
		fd, err := unix.Openat2(unix.AT_FDCWD, real, &unix.OpenHow{
			Flags:   openFlags,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != unix.ENOSYS && err != unix.EPERM {
			return fd, err
		}
		noOpenat2.Store(true)
	}
	return unix.Open(real, openFlags, 0)
}

// pseudoFS reports whether fd lies on a file system whose files are made
// up by the kernel: they claim to be regular and empty, yet hold the
// process's environment or memory.
func pseudoFS(fd int) bool {
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil {
		return true
	}
	switch fs.Type {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC,
		unix.SECURITYFS_MAGIC, unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC,
		unix.BPF_FS_MAGIC, unix.EFIVARFS_MAGIC:
		return true
	}
	return false
}
