//go:build !unix

package mcp

import "os/exec"

func setProcGroup(*exec.Cmd) {}

func termGroup(cmd *exec.Cmd) { killGroup(cmd) }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
