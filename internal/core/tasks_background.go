package core

import (
	"context"

	"github.com/plyhq/ply/internal/tools"
)

// taskView shows a background subagent or a schedule as one of the
// session's tasks, so /tasks lists it and task_stop stops it beside the
// shell jobs.
type taskView struct {
	c *Session
	t runningTask
}

func (b taskView) Info(int) tools.TaskInfo {
	status := "running"
	if b.t.Kind == "schedule" {
		status = "scheduled"
	}
	return tools.TaskInfo{ID: b.t.ID, Kind: b.t.Kind, Title: b.t.Label, Running: true, Status: status, Started: b.t.Started}
}

func (b taskView) Stop(context.Context) error {
	if !b.c.stopBackgroundTask(b.t.ID) {
		return tools.ErrTaskNotRunning
	}
	return nil
}

// backgroundToolTasks lists background subagents and schedules as tasks.
func (c *Session) backgroundToolTasks() []tools.Task {
	var out []tools.Task
	for _, t := range c.backgroundTasks() {
		out = append(out, taskView{c: c, t: t})
	}
	return out
}
