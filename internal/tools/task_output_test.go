package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox"
)

func taskTestStart(t *testing.T, sh *Shell, command string) string {
	t.Helper()
	res := searchTestRun(t, sh, map[string]any{"command": command, "is_background": true})
	m := regexp.MustCompile(`job (bg-\d+)`).FindStringSubmatch(res.Output)
	if res.IsError || m == nil {
		t.Fatalf("start: %+v", res)
	}
	return m[1]
}

// wait_for_output returns as soon as the job prints, not at the timeout;
// with nothing new it returns at the timeout and says the job runs on.
func TestTaskOutputWaitsForNewOutput(t *testing.T) {
	sh, _ := shellTestTool(t)
	sh.SetOutputDir(t.TempDir())
	read := NewTaskOutput(sh)
	id := taskTestStart(t, sh, "echo first; sleep 0.3; echo second; sleep 60")

	seen := ""
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(seen, "second") {
		start := time.Now()
		res := searchTestRun(t, read, map[string]any{"task_id": id, "wait_for_output": true, "timeout": 20000})
		if time.Since(start) > 5*time.Second || res.IsError {
			t.Fatalf("the read waited %v for output that was due at once: %+v", time.Since(start), res)
		}
		if !strings.Contains(res.Output, "Status: running") {
			t.Fatalf("status: %s", res.Output)
		}
		_, out, _ := strings.Cut(res.Output, "New output:")
		if strings.Contains(seen, "first") && strings.Contains(out, "first") {
			t.Fatalf("output read twice:\n%s", res.Output)
		}
		seen += out
		if time.Now().After(deadline) {
			t.Fatalf("never saw second: %q", seen)
		}
	}
	start := time.Now()
	res := searchTestRun(t, read, map[string]any{"task_id": id, "wait_for_output": true, "timeout": 300})
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Errorf("an idle wait of 300 ms took %v", d)
	}
	if !strings.Contains(res.Output, "Waited 300 ms; it is still running.") || !strings.Contains(res.Output, "(no new output)") {
		t.Errorf("idle read:\n%s", res.Output)
	}
	// A read that does not wait returns at once.
	start = time.Now()
	searchTestRun(t, read, map[string]any{"task_id": id})
	if d := time.Since(start); d > time.Second {
		t.Errorf("a read without waiting took %v", d)
	}
}

// New output beyond the limit shows its end, says how much is left out,
// and the file keeps all of it.
func TestTaskOutputCapsWhatIsShown(t *testing.T) {
	sh, _ := shellTestTool(t)
	sh.SetOutputDir(t.TempDir())
	sh.SetOutputLimit(1000)
	id := taskTestStart(t, sh, "seq 1 100000")
	res := searchTestRun(t, NewTaskOutput(sh), map[string]any{"task_id": id, "block": true, "timeout": 20000})
	if !strings.Contains(res.Output, "Status: exit code 0") || !strings.HasSuffix(res.Output, "\n100000") {
		t.Fatalf("end of output missing:\n%s", res.Output)
	}
	if len(res.Output) > 1500 || !strings.Contains(res.Output, "earlier bytes of new output not shown") {
		t.Fatalf("%d characters shown, or no note:\n%s", len(res.Output), res.Output)
	}
	m := regexp.MustCompile(`Output file: (\S+)`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatal("no output file named")
	}
	data, err := os.ReadFile(m[1])
	if err != nil || !strings.HasPrefix(string(data), "1\n2\n") || !strings.HasSuffix(string(data), "\n99999\n100000\n") {
		t.Fatalf("the file lacks output: %d bytes, %v", len(data), err)
	}
}

func TestTaskOutputErrors(t *testing.T) {
	sh, _ := shellTestTool(t)
	read := NewTaskOutput(sh)
	if res := searchTestRun(t, read, map[string]any{"task_id": "bg-7"}); res.ErrorType != "TASK_NOT_FOUND" || !strings.Contains(res.Output, "none") {
		t.Errorf("unknown job: %+v", res)
	}
	id := taskTestStart(t, sh, "sleep 60")
	if res := searchTestRun(t, read, map[string]any{"task_id": id, "timeout": -1}); res.ErrorType != "INVALID_TOOL_PARAMS" {
		t.Errorf("negative timeout: %+v", res)
	}
	// Cancelling the call ends the wait with the context's error.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := read.Execute(ctx, json.RawMessage(`{"task_id":"`+id+`","block":true}`), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a cancelled wait returned %v", err)
	}
	// Without an output directory there is no file to name.
	res := searchTestRun(t, read, map[string]any{"task_id": id})
	if strings.Contains(res.Output, "Output file") {
		t.Errorf("a file named without an output directory:\n%s", res.Output)
	}
}

// task_stop ends the job's process group: a child that the leader waits
// for is gone too; the task list shows it stopped, with its last lines.
func TestTaskStopEndsTheGroup(t *testing.T) {
	sh, _ := shellTestTool(t)
	tasks := &TaskList{}
	tasks.Add(sh.Tasks)
	stop := NewTaskStop(tasks)
	id := taskTestStart(t, sh, "echo one; echo two; sleep 60 & echo $!; wait")
	res := searchTestRun(t, NewTaskOutput(sh), map[string]any{"task_id": id, "wait_for_output": true, "timeout": 20000})
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0; {
		if m := regexp.MustCompile(`(?m)^(\d+)$`).FindStringSubmatch(res.Output); m != nil {
			child, _ = strconv.Atoi(m[1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no child PID: %s", res.Output)
		}
		res = searchTestRun(t, NewTaskOutput(sh), map[string]any{"task_id": id, "wait_for_output": true, "timeout": 20000})
	}
	task, ok := tasks.Find(id)
	if info := task.Info(2); !ok || !info.Running || info.Kind != "shell" || len(info.Last) != 2 || info.Last[1] != strconv.Itoa(child) {
		t.Fatalf("task info while running: %+v", info)
	}
	if shellTestGone(child) {
		t.Fatal("the child is not running")
	}
	res = searchTestRun(t, stop, map[string]any{"task_id": id})
	if res.IsError || !strings.Contains(res.Output, "Stopped background task "+id) || !strings.Contains(res.Output, "stopped (") {
		t.Fatalf("stop: %+v", res)
	}
	shellTestWaitGone(t, child)
	if info := task.Info(1); info.Running || !strings.HasPrefix(info.Status, "stopped") {
		t.Errorf("task info after stop: %+v", info)
	}
	if res := searchTestRun(t, stop, map[string]any{"task_id": id}); res.ErrorType != "TASK_NOT_RUNNING" {
		t.Errorf("second stop: %+v", res)
	}
	if res := searchTestRun(t, stop, map[string]any{"task_id": "bg-99"}); res.ErrorType != "TASK_NOT_FOUND" || !strings.Contains(res.Output, id) {
		t.Errorf("unknown task: %+v", res)
	}
	if stop.Kind().ReadOnly() != true || NewTaskOutput(sh).Kind() != KindRead {
		t.Error("reading and stopping must need no approval")
	}
}

func TestLastLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want []string
	}{
		{"a\nb\nc\n", 2, []string{"b", "c"}},
		{"a\n\n\nb", 5, []string{"a", "b"}},
		{"", 3, nil},
		{"x\r\n", 1, []string{"x"}},
	} {
		if got := lastLines(c.in, c.n); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("lastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A sandbox that keeps commands from signalling what they did not start
// does not keep ply from stopping a job: task_stop still ends its group.
func TestTaskStopInTheSandbox(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	sh, ws := shellTestTool(t)
	sh.SetSandbox(&sandbox.Policy{WritableDirs: ws.Roots(), ScopeSignals: true})
	tasks := &TaskList{}
	tasks.Add(sh.Tasks)
	id := taskTestStart(t, sh, "sleep 60 & echo $!; wait")
	res := searchTestRun(t, NewTaskOutput(sh), map[string]any{"task_id": id, "wait_for_output": true, "timeout": 20000})
	m := regexp.MustCompile(`(?m)^(\d+)$`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no child PID: %s", res.Output)
	}
	child, _ := strconv.Atoi(m[1])
	if res := searchTestRun(t, NewTaskStop(tasks), map[string]any{"task_id": id}); res.IsError {
		t.Fatalf("stop: %+v", res)
	}
	shellTestWaitGone(t, child)
}

// OnJobEnd hears of each job's end once, with how it ended: what a
// notification to the model can be made of.
func TestShellOnJobEnd(t *testing.T) {
	sh, _ := shellTestTool(t)
	ended := make(chan TaskInfo, 4)
	sh.SetOnJobEnd(func(info TaskInfo) { ended <- info })
	id := taskTestStart(t, sh, "echo bye; exit 3")
	select {
	case info := <-ended:
		if info.ID != id || info.Running || info.Status != "exit code 3" || len(info.Last) != 1 || info.Last[0] != "bye" {
			t.Fatalf("ended: %+v", info)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no word of the job's end")
	}
	stopped := taskTestStart(t, sh, "sleep 60")
	if err := sh.KillJob(stopped); err != nil {
		t.Fatal(err)
	}
	select {
	case info := <-ended:
		if info.ID != stopped || !strings.HasPrefix(info.Status, "stopped") {
			t.Fatalf("ended: %+v", info)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no word of the stopped job's end")
	}
	select {
	case info := <-ended:
		t.Fatalf("a second word: %+v", info)
	case <-time.After(100 * time.Millisecond):
	}
}
