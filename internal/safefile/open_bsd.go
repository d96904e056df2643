//go:build unix && !linux

package safefile

import "golang.org/x/sys/unix"

// openResolved opens real without following a link at its last
// component.
func openResolved(real string) (int, error) {
	return unix.Open(real, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
}

// pseudoFS: /proc, where there is one, is not a file system of process
// secrets here; devices are refused as non-regular files.
func pseudoFS(int) bool { return false }
