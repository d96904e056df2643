package core

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/tools"
)

// The task list the lead's /tasks reads: schedules (and background
// subagents) are listed and stoppable by id.
func TestBackgroundTaskList(t *testing.T) {
	w, err := session.Create(t.TempDir(), t.TempDir(), "11111111-1111-1111-1111-111111111111", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := inbox.New()
	c := &Session{inbox: in, bg: newBackground(nil, in, w), sched: schedule.New(in)}
	defer c.bg.close()
	defer c.sched.Close()
	if _, err := c.sched.Every(time.Hour, "check the deploy", schedule.KindLoop); err != nil {
		t.Fatal(err)
	}
	l := c.backgroundTasks()
	if len(l) != 1 || l[0].ID != "loop-1" || l[0].Kind != "schedule" || !strings.Contains(l[0].Label, "check the deploy") {
		t.Fatalf("tasks %+v", l)
	}
	if !c.stopBackgroundTask("loop-1") || c.stopBackgroundTask("loop-1") || len(c.backgroundTasks()) != 0 {
		t.Fatal("stop")
	}
}

func TestNotificationTextOfAFailedTask(t *testing.T) {
	task := &bgTask{id: "agent-3", name: "explore", desc: "map the code", started: time.Now()}
	got := notificationText(task, agent.Report{Err: "reached the session turn limit", Subtype: "error_max_turns", Text: "half a map"})
	for _, want := range []string{"agent-3", "explore subagent: map the code", "did not finish (error_max_turns)", "half a map", "</task-notification>"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

// A schedule is one of the session's tasks: listed with the shell jobs
// and stopped by task_stop's path.
func TestSchedulesAreTasks(t *testing.T) {
	in := inbox.New()
	c := &Session{inbox: in, bg: newBackground(nil, in, nil), sched: schedule.New(in), tasks: &tools.TaskList{}}
	defer c.bg.close()
	defer c.sched.Close()
	c.tasks.Add(c.backgroundToolTasks)
	j, err := c.sched.Every(time.Hour, "check the deploy", schedule.KindLoop)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := c.tasks.Find(j.ID)
	if !ok {
		t.Fatalf("schedule %s is not among the tasks", j.ID)
	}
	if info := task.Info(3); info.Kind != "schedule" || !strings.Contains(info.Title, "check the deploy") {
		t.Errorf("task info %+v", info)
	}
	if err := task.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := task.Stop(context.Background()); !errors.Is(err, tools.ErrTaskNotRunning) {
		t.Errorf("second stop: %v, want ErrTaskNotRunning", err)
	}
	if len(c.tasks.Tasks()) != 0 {
		t.Errorf("a stopped schedule is still listed")
	}
}
