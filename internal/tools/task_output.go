package tools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// TaskOutputName is the task_output tool's name. Qwen Code has no tool
// that reads a background shell's output (its model reads the output
// file); the name and the task_id, block and timeout parameters follow
// Claude Code's TaskOutput in Qwen Code's spelling, beside task_stop.
const TaskOutputName = "task_output"

const (
	taskOutputDefaultWait = 30_000  // ms
	taskOutputMaxWait     = 600_000 // ms
	// taskOutputSettle is how long wait_for_output goes on reading once
	// new output has come.
	taskOutputSettle = 50 * time.Millisecond
)

// TaskOutput is the task_output tool: it reads what a background shell
// job printed since the last read, with its status and exit code,
// waiting for it when asked.
type TaskOutput struct{ sh *Shell }

// NewTaskOutput returns the task_output tool over sh's background jobs.
func NewTaskOutput(sh *Shell) *TaskOutput { return &TaskOutput{sh: sh} }

func (*TaskOutput) Name() string { return TaskOutputName }

// Kind is KindRead: it only reads what ply keeps of a job.
func (*TaskOutput) Kind() Kind { return KindRead }

func (*TaskOutput) Description() string {
	return `Reads a background shell job: its output since the last read, its status (running, exit code or signal) and the file that keeps all its output. Returns at once unless block (wait until it ends) or wait_for_output (until it prints or ends) is true, for at most timeout ms (default 30000). Shows at most the last 16000 characters; the file has the rest.`
}

var taskOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "description": "The job's ID, from run_shell_command."},
    "block": {"type": "boolean", "description": "Wait until the job ends. Default false."},
    "wait_for_output": {"type": "boolean", "description": "Wait until the job prints or ends. Default false."},
    "timeout": {"type": ["number", "string"], "exclusiveMinimum": 0, "description": "Longest wait in ms (default 30000, at most 600000)."}
  },
  "required": ["task_id"],
  "additionalProperties": false
}`)

func (*TaskOutput) Schema() json.RawMessage { return taskOutputSchema }

type taskOutputParams struct {
	TaskID        string   `json:"task_id"`
	Block         bool     `json:"block"`
	WaitForOutput bool     `json:"wait_for_output"`
	Timeout       *float64 `json:"timeout"`
}

func (t *TaskOutput) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	var p taskOutputParams
	if r := searchDecodeArgs(args, &p); r != nil {
		return *r, nil
	}
	wait := time.Duration(taskOutputDefaultWait) * time.Millisecond
	if p.Timeout != nil {
		ms := *p.Timeout
		if ms <= 0 || math.IsNaN(ms) {
			return Errorf("INVALID_TOOL_PARAMS", "timeout must be a positive number of milliseconds, got %v", ms), nil
		}
		wait = time.Duration(min(ms, taskOutputMaxWait) * float64(time.Millisecond))
	}
	m := &t.sh.jobs
	j := m.find(p.TaskID)
	if j == nil {
		return Errorf("TASK_NOT_FOUND", "No background shell job found with ID %q: %s.", p.TaskID, m.describeIDs()), nil
	}
	timedOut := false
	if p.Block || p.WaitForOutput {
		var more <-chan struct{}
		if !p.Block {
			m.mu.Lock()
			more = j.out.changedAfter(j.read)
			m.mu.Unlock()
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-j.done:
		case <-more:
			// Output comes in bursts: take the rest of this one too
			// rather than a piece of a line.
			select {
			case <-j.done:
			case <-time.After(taskOutputSettle):
			case <-ctx.Done():
			}
		case <-timer.C:
			timedOut = true
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	return t.report(j, timedOut, wait), nil
}

// report takes the job's new output, marks it read, and describes it.
func (t *TaskOutput) report(j *shellJob, timedOut bool, wait time.Duration) Result {
	m := &t.sh.jobs
	m.mu.Lock()
	b, lost, end := j.out.since(j.read)
	j.read = end
	m.mu.Unlock()
	running, status := m.status(j)

	var sb strings.Builder
	fmt.Fprintf(&sb, "Task: %s\nCommand: %s\nStatus: %s\n", j.id, j.command, status)
	if timedOut {
		fmt.Fprintf(&sb, "Waited %d ms; it is still running.\n", wait.Milliseconds())
	}
	if note := j.out.fileNote(); note != "" {
		sb.WriteString(note + "\n")
	}
	limit := cmp.Or(t.sh.maxOutput, shellMaxOutput)
	if len(b) > limit {
		cut := len(b) - limit
		if i := bytes.IndexByte(b[cut:], '\n'); i >= 0 && i < len(b)-cut-1 {
			cut += i + 1 // start on a whole line
		}
		lost += int64(cut)
		b = b[cut:]
	}
	switch {
	case len(b) == 0 && lost == 0:
		sb.WriteString("New output: (no new output)")
	default:
		sb.WriteString("New output:\n")
		if lost > 0 {
			fmt.Fprintf(&sb, "[... %d earlier bytes of new output not shown; the output file has them ...]\n", lost)
		}
		sb.WriteString(strings.TrimSuffix(jobText(b), "\n"))
	}
	display := fmt.Sprintf("%s: %s", j.id, status)
	if running {
		display = fmt.Sprintf("%s: running, %d new bytes", j.id, len(b))
	}
	return Result{Output: sb.String(), Display: display}
}

// describeIDs lists the jobs' IDs with their state, for a message.
func (m *shellJobs) describeIDs() string {
	m.mu.Lock()
	jobs := append([]*shellJob(nil), m.jobs...)
	m.mu.Unlock()
	if len(jobs) == 0 {
		return "there are none"
	}
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		_, status := m.status(j)
		ids = append(ids, j.id+" ("+status+")")
	}
	return "the jobs are " + strings.Join(ids, ", ")
}

// shellTask shows a background job as a Task.
type shellTask struct {
	m *shellJobs
	j *shellJob
}

func (t shellTask) Info(lines int) TaskInfo {
	running, status := t.m.status(t.j)
	info := TaskInfo{
		ID: t.j.id, Kind: "shell", Title: strings.Join(strings.Fields(t.j.command), " "),
		Running: running, Status: status, Started: t.j.started, OutputFile: t.j.out.path(),
	}
	if lines > 0 {
		info.Last = lastLines(jobText(t.j.out.tail(8<<10)), lines)
	}
	return info
}

func (t shellTask) Stop(context.Context) error { return t.m.stop(t.j) }

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, "\r"))
		}
	}
	return out[max(len(out)-n, 0):]
}

// Tasks lists the background jobs as tasks, oldest first.
func (t *Shell) Tasks() []Task {
	t.jobs.mu.Lock()
	defer t.jobs.mu.Unlock()
	out := make([]Task, 0, len(t.jobs.jobs))
	for _, j := range t.jobs.jobs {
		out = append(out, shellTask{&t.jobs, j})
	}
	return out
}
