package envpolicy

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Protect keeps the processes ply starts, which run as the same user, from
// reading ply's memory and initial environment (/proc/PID/environ and
// /proc/PID/mem), where the credentials it withholds from them still are:
// it clears the process's dumpable flag, which also means no core dump.
// Children are not affected (execve sets the flag again). Call it early in
// main.
func Protect() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("envpolicy: clearing the dumpable flag: %w", err)
	}
	return nil
}
