//go:build unix

package core

import "golang.org/x/sys/unix"

// freeBytes is the room left to an unprivileged user on dir's file
// system.
func freeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
