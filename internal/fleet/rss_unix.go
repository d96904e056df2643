//go:build unix

package fleet

import (
	"os"
	"runtime"
	"syscall"
)

// MaxRSS is the peak resident set of an exited process, in bytes (0 where
// the system does not report it).
func MaxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes there
	}
	return ru.Maxrss * 1024 // kilobytes on Linux and the BSDs
}
