//go:build unix

package checkpoint

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process has used (user and system),
// which, unlike wall time, a machine shared with other work does not
// inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// diskBytes is the disk space p takes, in blocks.
func diskBytes(b *testing.B, p string) int64 {
	var st syscall.Stat_t
	if syscall.Lstat(p, &st) != nil {
		return 0
	}
	return st.Blocks * 512
}
