//go:build unix && !linux

package tools

import "golang.org/x/sys/unix"

// openat2Beneath has no one-call form here: the component walk does it.
func openat2Beneath(int, string) (int, error) { return -1, unix.ENOSYS }
