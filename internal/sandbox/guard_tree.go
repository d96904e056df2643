package sandbox

import (
	"os/exec"
	"sync"
)

// GuardTree is Guard, and where the system can track a process tree as
// a whole it also makes cmd start inside the tree that ends with ply: on
// Linux, a cgroup v2 child of ply's own cgroup, which no process leaves
// by changing its session, process group, environment or dumpable flag.
// Where no such cgroup can be made, GuardTree is Guard.
func GuardTree(cmd *exec.Cmd) {
	Guard(cmd)
	if g, err := startedGuardian(); err == nil {
		g.enter(cmd)
	}
}

var guardianAhead sync.Once

// StartGuardian starts the guardian in the background, once, when no
// command has started it yet, so that the next command Guard or
// GuardTree prepares finds it running instead of starting it (a cgroup
// to make and probe, a process to start: milliseconds, on the command's
// path). It does not wait; a failure is what Guard would have met, and
// is reported the same way when a command is prepared.
func StartGuardian() {
	guardianAhead.Do(func() { go startedGuardian() })
}
