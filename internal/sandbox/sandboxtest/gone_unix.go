//go:build unix

package sandboxtest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WaitGone waits up to timeout for pid to have exited (gone, or a zombie
// waiting to be reaped) and reports whether it did. A process sent SIGKILL
// is gone only once the kernel has torn it down, which on a loaded
// machine is not at once.
func WaitGone(pid int, timeout time.Duration) bool {
	return waitFor(func() bool { return Gone(pid) }, timeout)
}

// WaitGroupGone waits up to timeout for the process group pgid to have
// no member left and reports whether it has none.
func WaitGroupGone(pgid int, timeout time.Duration) bool {
	return waitFor(func() bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }, timeout)
}

// Gone reports whether pid no longer runs: it is gone, or a zombie (in a
// container nobody may reap orphans).
func Gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) || zombie(pid)
}

func waitFor(done func() bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	return i >= 0 && i+2 < len(data) && (data[i+2] == 'Z' || data[i+2] == 'X')
}
