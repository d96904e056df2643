//go:build unix

package sandboxtest

import (
	"os/exec"
	"syscall"
)

// Kill sends SIGKILL to pid; an error (it is gone) is ignored.
func Kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// KillGroup sends SIGKILL to the process group pgid.
func KillGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }

// NewGroup makes cmd, which has not started, lead a process group of its
// own, for KillGroup.
func NewGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// Alive reports whether pid may be signalled: it runs (or is a zombie).
func Alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Mkfifo makes a named pipe at path.
func Mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// NonBlock is the flag that opens a FIFO without waiting for its other end.
const NonBlock = syscall.O_NONBLOCK
