// Package procgroup runs a command as the root of a tree of processes
// that can be ended as a whole: a process group (its own session) on
// Unix, a job object on Windows. It owns only that mechanism; when to
// end a tree, and tying it to ply's life on Linux (the guardian), belong
// to its callers and to package sandbox.
//
// A caller calls Prepare before the command starts, Started once it has
// started, Term or Kill to end the tree, and Done once it has no more use
// for the tree (after the leader was reaped and its output drained).
package procgroup

import "os/exec"

// Started records that cmd, prepared with Prepare, has started. When the
// tree cannot be made (Windows: the job object), cmd is killed and
// reaped and the error returned: a command whose tree cannot be ended
// does not run.
func Started(cmd *exec.Cmd) error {
	if err := started(cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}
