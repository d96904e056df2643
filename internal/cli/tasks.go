package cli

import "github.com/plyhq/ply/internal/tools"

// registerTaskTools offers the tools that read and stop the session's
// background work, and returns the list that gathers it. Another kind of
// background work joins with one tasks.Add.
func registerTaskTools(reg *tools.Registry, shell *tools.Shell) *tools.TaskList {
	tasks := &tools.TaskList{}
	tasks.Add(shell.Tasks)
	reg.Register(tools.NewTaskOutput(shell))
	reg.Register(tools.NewTaskStop(tasks))
	return tasks
}
