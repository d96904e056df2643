package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Task is one piece of work that goes on in the background of a session:
// a shell job, and whatever else a session runs on its own (a background
// agent, a schedule). task_stop and the UI's task list see every kind the
// same way.
type Task interface {
	// Info describes the task now, with at most lines of its latest
	// output.
	Info(lines int) TaskInfo
	// Stop ends the task and returns once it has ended. Stopping a task
	// that is no longer running returns ErrTaskNotRunning.
	Stop(ctx context.Context) error
}

// ErrTaskNotRunning is what Task.Stop returns for a task that has ended.
var ErrTaskNotRunning = errors.New("the task is not running")

// TaskInfo is what a task shows of itself at one moment.
type TaskInfo struct {
	ID      string
	Kind    string // "shell", …
	Title   string // the command, or what the task does, on one line
	Running bool
	// Status says how it goes or how it ended: "running", "exit code 0",
	// "stopped (killed by SIGTERM)".
	Status  string
	Started time.Time
	// OutputFile, when not "", keeps the task's whole output.
	OutputFile string
	Last       []string // its latest output lines, oldest first
}

// TaskList gathers a session's background tasks from every kind that has
// them; each kind adds a source once.
type TaskList struct {
	mu      sync.Mutex
	sources []func() []Task
}

// Add makes the tasks src lists part of l.
func (l *TaskList) Add(src func() []Task) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sources = append(l.sources, src)
}

// Tasks returns every source's tasks, source by source in the order they
// were added.
func (l *TaskList) Tasks() []Task {
	l.mu.Lock()
	srcs := slices.Clone(l.sources)
	l.mu.Unlock()
	var out []Task
	for _, src := range srcs {
		out = append(out, src()...)
	}
	return out
}

// Find returns the task whose ID is id.
func (l *TaskList) Find(id string) (Task, bool) {
	for _, t := range l.Tasks() {
		if t.Info(0).ID == id {
			return t, true
		}
	}
	return nil, false
}

// ids lists the IDs of l's tasks, for a message.
func (l *TaskList) ids() string {
	var ids []string
	for _, t := range l.Tasks() {
		info := t.Info(0)
		state := "ended"
		if info.Running {
			state = "running"
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", info.ID, state))
	}
	if len(ids) == 0 {
		return "there are none"
	}
	return "the tasks are " + strings.Join(ids, ", ")
}

// TaskStopName is the task_stop tool's name (as Qwen Code names it).
const TaskStopName = "task_stop"

// TaskStop is the task_stop tool: it stops a background task this session
// started.
type TaskStop struct{ tasks *TaskList }

// NewTaskStop returns the task_stop tool over tasks.
func NewTaskStop(tasks *TaskList) *TaskStop { return &TaskStop{tasks: tasks} }

func (*TaskStop) Name() string { return TaskStopName }

// Kind is KindThink: like todo_write, it acts only on the session's own
// state (a task the session started), never on files or other processes,
// so it needs no approval.
func (*TaskStop) Kind() Kind { return KindThink }

func (*TaskStop) Description() string {
	return `Stops a background task of this session by its ID: a shell job ends with every process it started. Returns its final status.`
}

var taskStopSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "description": "The ID of the background task to stop."}
  },
  "required": ["task_id"],
  "additionalProperties": false
}`)

func (*TaskStop) Schema() json.RawMessage { return taskStopSchema }

type taskStopParams struct {
	TaskID string `json:"task_id"`
}

func (t *TaskStop) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	var p taskStopParams
	if r := searchDecodeArgs(args, &p); r != nil {
		return *r, nil
	}
	task, ok := t.tasks.Find(p.TaskID)
	if !ok {
		return Errorf("TASK_NOT_FOUND", "No background task found with ID %q: %s.", p.TaskID, t.tasks.ids()), nil
	}
	err := task.Stop(ctx)
	info := task.Info(0)
	switch {
	case errors.Is(err, ErrTaskNotRunning):
		return Errorf("TASK_NOT_RUNNING", "Background task %s is not running (status: %s).", info.ID, info.Status), nil
	case err != nil && ctx.Err() != nil:
		return Result{}, err
	case err != nil:
		return Errorf("TASK_STOP_FAILED", "Stopping background task %s failed: %v", info.ID, err), nil
	}
	msg := fmt.Sprintf("Stopped background task %s (%s). Status: %s.", info.ID, info.Title, info.Status)
	if info.OutputFile != "" {
		msg += "\nOutput file: " + info.OutputFile
	}
	return Result{Output: msg, Display: "Stopped " + info.ID}, nil
}
