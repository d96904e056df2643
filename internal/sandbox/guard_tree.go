package sandbox

import "os/exec"

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
