package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/tools"
)

// tasksLastLines is how many of a task's latest output lines /tasks shows.
const tasksLastLines = 3

func init() {
	registerCommand(slashCommand{
		name: "/tasks",
		help: "[stop ID]  list the background tasks (shell jobs) with their last lines, or stop one",
		run:  (*model).tasksCommand,
	})
}

func (m *model) tasksCommand(arg string) tea.Cmd {
	tl, ok := probe[TaskLister](m)
	if !ok {
		return m.unavailable("/tasks")
	}
	verb, id, _ := strings.Cut(arg, " ")
	switch verb {
	case "":
		return m.commit(m.tasksText(tl.BackgroundTasks()))
	case "stop":
		return m.stopTask(tl, strings.TrimSpace(id))
	}
	return m.commit(m.st.err.Render("usage: /tasks, or /tasks stop ID"))
}

// tasksText lists tasks: a header line each, then its last lines.
func (m *model) tasksText(tasks []tools.Task) string {
	if len(tasks) == 0 {
		return m.st.dim.Render("no background tasks")
	}
	var b strings.Builder
	b.WriteString("Background tasks:")
	running := 0
	for _, t := range tasks {
		info := t.Info(tasksLastLines)
		status := m.st.dim.Render(sanitize(info.Status))
		if info.Running {
			running++
			status = m.st.ok.Render(sanitize(info.Status))
		}
		kind := ""
		if info.Kind != "" {
			kind = info.Kind + "  "
		}
		fmt.Fprintf(&b, "\n  %s  %s  %s%s", m.st.bold.Render(sanitize(info.ID)), status, kind,
			abbreviate(sanitize(info.Title), max(m.width-len(info.ID)-len(info.Status)-len(kind)-12, 10)))
		if !info.Started.IsZero() {
			b.WriteString(m.st.dim.Render(" (" + tasksAge(time.Since(info.Started)) + ")"))
		}
		for _, l := range info.Last {
			b.WriteString("\n      " + m.st.dim.Render(abbreviate(sanitize(l), max(m.width-8, 10))))
		}
		if info.OutputFile != "" {
			b.WriteString("\n      " + m.st.dim.Render("output: "+sanitize(info.OutputFile)))
		}
	}
	if running > 0 {
		b.WriteString("\n" + m.st.dim.Render("(/tasks stop ID stops one)"))
	}
	return b.String()
}

// tasksAge says how long ago a task started, roughly.
func tasksAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm ago", int(d.Hours()), int(d.Minutes())%60)
}

// stopTask stops the task id, or the only running one when id is "".
// Stopping can take a second (SIGTERM, then SIGKILL): it runs off the
// UI's goroutine and reports with a notice.
func (m *model) stopTask(tl TaskLister, id string) tea.Cmd {
	tasks := tl.BackgroundTasks()
	var task tools.Task
	var running []string
	for _, t := range tasks {
		info := t.Info(0)
		if info.ID == id {
			task = t
		}
		if info.Running {
			running = append(running, info.ID)
		}
	}
	if id == "" && len(running) == 1 {
		return m.stopTask(tl, running[0])
	}
	if task == nil {
		msg := "no background task " + id
		if id == "" {
			msg = "which task? /tasks stop ID"
		}
		if len(running) > 0 {
			msg += " (running: " + strings.Join(running, ", ") + ")"
		}
		return m.commit(m.st.err.Render(sanitize(msg)))
	}
	ctx := m.base
	return tea.Batch(m.commit(m.st.dim.Render("stopping "+sanitize(id)+"…")), func() tea.Msg {
		err := task.Stop(ctx)
		info := task.Info(0)
		switch {
		case errors.Is(err, tools.ErrTaskNotRunning):
			return noticeMsg{text: fmt.Sprintf("%s is not running (%s)", info.ID, info.Status)}
		case err != nil:
			return noticeMsg{text: fmt.Sprintf("stopping %s failed: %v", info.ID, err)}
		}
		return noticeMsg{text: fmt.Sprintf("%s %s", info.ID, info.Status)}
	})
}
