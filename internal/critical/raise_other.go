//go:build !unix

package critical

import "syscall"

// raise does nothing where a process cannot signal itself: there a
// caught SIGHUP is not delivered again.
func raise(syscall.Signal) {}
