//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Prepare makes cmd, which has not started, lead a session of its own,
// which is also its own process group: the group can be signalled as a
// whole, and without a controlling terminal a program that wants a
// password fails at once. Other SysProcAttr fields are kept.
func Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// A process group needs nothing beyond Prepare.
func started(int) error { return nil }

// Done releases what Started took for the tree led by pid: nothing here.
func Done(int) {}

// Term asks every process of the group led by pid to end (SIGTERM).
func Term(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// Kill ends every process of the group led by pid (SIGKILL).
func Kill(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
