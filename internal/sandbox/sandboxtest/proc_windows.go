//go:build windows

package sandboxtest

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// Windows counterparts of the Unix process helpers. Windows has no
// process groups to signal and no FIFOs: KillGroup kills the leader only,
// and Mkfifo fails with errors.ErrUnsupported, which tests that need a
// FIFO skip on.

// Kill ends pid; an error (it is gone) is ignored.
func Kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// KillGroup ends the leader pgid.
func KillGroup(pgid int) error {
	p, err := os.FindProcess(pgid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// NewGroup makes cmd start in a console process group of its own.
func NewGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// Alive reports whether pid still runs.
func Alive(pid int) bool { return !Gone(pid) }

// Mkfifo fails: Windows has no FIFOs.
func Mkfifo(string, uint32) error { return errors.ErrUnsupported }

// NonBlock is no flag on Windows.
const NonBlock = 0

// WaitGone waits up to timeout for pid to have exited.
func WaitGone(pid int, timeout time.Duration) bool {
	return waitFor(func() bool { return Gone(pid) }, timeout)
}

// WaitGroupGone waits for the leader pgid only: Windows has no groups.
func WaitGroupGone(pgid int, timeout time.Duration) bool { return WaitGone(pgid, timeout) }

// Gone reports whether pid no longer runs.
func Gone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
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
