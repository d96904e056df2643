//go:build unix

package tools

import "golang.org/x/sys/unix"

// processGone reports whether no process has the id pid. A live process
// of another user answers EPERM: it is there.
func processGone(pid int) bool { return unix.Kill(pid, 0) == unix.ESRCH }
