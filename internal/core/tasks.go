package core

import (
	"fmt"
	"io"

	"github.com/plyhq/ply/internal/tools"
)

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

// stopJobs ends the shell's background jobs with the session, saying on
// w which were still running: the user may have expected a server to
// outlive ply.
func stopJobs(shell *tools.Shell, w io.Writer) {
	for _, t := range shell.Tasks() {
		if info := t.Info(0); info.Running {
			fmt.Fprintf(w, "ply: stopped background job %s (%s) as the session ended\n", info.ID, info.Title)
		}
	}
	_ = shell.Close()
}
