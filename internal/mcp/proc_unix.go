//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcGroup puts the server in a process group of its own, so that
// stopping it reaches the processes it started.
func setProcGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func termGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }
func killGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return
	}
	// The group id is the leader's pid; ESRCH once all are gone is fine.
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
