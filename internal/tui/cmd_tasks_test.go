package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/tools"
)

// fakeTask is a background task the test controls.
type fakeTask struct {
	mu      sync.Mutex
	info    tools.TaskInfo
	stopped int
}

func (f *fakeTask) Info(lines int) tools.TaskInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	info := f.info
	info.Last = info.Last[max(len(info.Last)-lines, 0):]
	return info
}

func (f *fakeTask) Stop(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.info.Running {
		return tools.ErrTaskNotRunning
	}
	f.stopped++
	f.info.Running, f.info.Status = false, "stopped (killed by SIGTERM)"
	return nil
}

// runCmd runs cmd and the commands of any batch it returns, and returns
// the first notice among their messages.
func runCmd(t *testing.T, cmd tea.Cmd) (noticeMsg, bool) {
	t.Helper()
	if cmd == nil {
		return noticeMsg{}, false
	}
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-msgs:
	case <-time.After(5 * time.Second):
		t.Fatal("a command did not return")
	}
	switch msg := msg.(type) {
	case noticeMsg:
		return msg, true
	case tea.BatchMsg:
		for _, c := range msg {
			if n, ok := runCmd(t, c); ok {
				return n, true
			}
		}
	}
	return noticeMsg{}, false
}

func TestTasksCommandListsAndStops(t *testing.T) {
	h := newHarness(t, nil, nil)
	server := &fakeTask{info: tools.TaskInfo{ID: "bg-1", Kind: "shell", Title: "npm run dev", Running: true, Status: "running",
		Started: time.Now().Add(-90 * time.Second), OutputFile: "/s/shell-bg-1.txt", Last: []string{"compiling", "ready on :3000", "GET / 200\x1b[2J"}}}
	build := &fakeTask{info: tools.TaskInfo{ID: "bg-2", Kind: "shell", Title: "make", Status: "exit code 2", Started: time.Now(), Last: []string{"error: boom"}}}
	h.m.cfg.Session = struct {
		bare
		TaskLister
	}{bare{}, tasksFunc(func() []tools.Task { return []tools.Task{server, build} })}

	h.typeText("/tasks")
	h.press(tea.KeyEnter, 0)
	p := h.printed()
	for _, want := range []string{"bg-1", "running", "npm run dev", "ready on :3000", "GET / 200", "bg-2", "exit code 2", "make", "error: boom", "/tasks stop"} {
		if !strings.Contains(p, want) {
			t.Fatalf("/tasks lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "\x1b[2J") {
		t.Fatal("a task's output reached the terminal unsanitised")
	}

	n, ok := runCmd(t, lookupCommand("/tasks").run(h.m, "stop bg-1"))
	if !ok || server.stopped != 1 || !strings.Contains(n.text, "bg-1") || !strings.Contains(n.text, "stopped") {
		t.Fatalf("stop: notice %q (%v), stopped %d times", n.text, ok, server.stopped)
	}
	n, _ = runCmd(t, lookupCommand("/tasks").run(h.m, "stop bg-2"))
	if !strings.Contains(n.text, "not running") {
		t.Errorf("stopping an ended task said %q", n.text)
	}
	before := len(h.m.printed)
	runCmd(t, lookupCommand("/tasks").run(h.m, "stop bg-9"))
	if got := strings.Join(h.m.printed[before:], "\n"); !strings.Contains(got, "no background task bg-9") {
		t.Errorf("stopping an unknown task said %q", got)
	}
}

func TestTasksCommandWithoutTasks(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.typeText("/tasks")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "/tasks is not available") {
		t.Fatalf("without a task source:\n%s", h.printed())
	}
	h.m.cfg.Session = struct {
		bare
		TaskLister
	}{bare{}, tasksFunc(func() []tools.Task { return nil })}
	h.typeText("/tasks")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "no background tasks") {
		t.Fatalf("with none:\n%s", h.printed())
	}
	// With one task running, stop needs no ID.
	only := &fakeTask{info: tools.TaskInfo{ID: "bg-3", Title: "sleep 60", Running: true, Status: "running"}}
	h.m.cfg.Session = struct {
		bare
		TaskLister
	}{bare{}, tasksFunc(func() []tools.Task { return []tools.Task{only} })}
	if _, ok := runCmd(t, lookupCommand("/tasks").run(h.m, "stop")); !ok || only.stopped != 1 {
		t.Fatalf("stop without an ID did not stop the one running task")
	}
}
