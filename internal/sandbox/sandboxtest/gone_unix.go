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
	deadline := time.Now().Add(timeout)
	for {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) || zombie(pid) {
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
