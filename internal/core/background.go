package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/session"
)

// maxBackground bounds the subagents running in the background at once.
const maxBackground = 8

// background runs the session's background subagents: each runs its own
// loop on a goroutine of its own, and its report goes to the session's
// inbox as a notification. They end with the session (close).
type background struct {
	agents *subagents
	inbox  *inbox.Inbox // the parent's
	// label marks a task's context with who asks for approval.
	label func(context.Context, string) context.Context
	w     *session.Writer

	ctx    context.Context // the session's; close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	tasks map[string]*bgTask
	// n counts the tasks the session started, those of earlier runs of
	// a resumed session included: ids are agent-1, agent-2, ...
	n int
}

// bgTask is one running background subagent.
type bgTask struct {
	id, name, desc string
	started        time.Time
	inbox          *inbox.Inbox // its own: messages from the parent
	cancel         context.CancelFunc
}

func newBackground(a *subagents, in *inbox.Inbox, w *session.Writer) *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{agents: a, inbox: in, w: w, ctx: ctx, cancel: cancel, tasks: map[string]*bgTask{}}
}

// Launch starts t in the background (agent.Launcher). The task keeps the
// values of ctx (the parent's printer, so a headless run's output nests
// it) but not its end: the call returns at once.
func (b *background) Launch(ctx context.Context, t agent.Task) (string, error) {
	b.mu.Lock()
	if b.ctx.Err() != nil {
		b.mu.Unlock()
		return "", errors.New("the session is ending")
	}
	if len(b.tasks) >= maxBackground {
		b.mu.Unlock()
		return "", fmt.Errorf("%d background tasks already run, the most a session may; wait for one to finish", maxBackground)
	}
	b.n++
	id := fmt.Sprintf("agent-%d", b.n)
	// Its approvals show in the same dialog, labelled with who asks.
	tctx := context.WithoutCancel(ctx)
	if b.label != nil {
		tctx = b.label(tctx, fmt.Sprintf("%s (%s)", t.Def.Name, id))
	}
	tctx, cancel := context.WithCancel(tctx)
	stop := context.AfterFunc(b.ctx, cancel)
	task := &bgTask{id: id, name: t.Def.Name, desc: t.Description, started: time.Now(), inbox: inbox.New(), cancel: cancel}
	b.tasks[id] = task
	release := b.inbox.Hold()
	b.wg.Add(1) // under the lock: close waits for it
	b.mu.Unlock()

	b.w.AppendBackground(session.Background{Task: id, Kind: "agent", Label: task.label(), State: session.BackgroundRunning})
	// The transcript holds the start before the call's result says it.
	_ = b.w.Sync()
	// The launching call's live output ends with the call.
	t.Out = nil
	go func() {
		defer b.wg.Done()
		defer release()
		defer stop()
		defer cancel()
		rep := b.agents.run(tctx, t, &taskLink{b: b, task: task})
		b.finish(task, rep, b.ctx.Err() != nil)
	}()
	return id, nil
}

// finish reports a task's end to the parent and forgets it.
func (b *background) finish(task *bgTask, rep agent.Report, cancelled bool) {
	b.mu.Lock()
	delete(b.tasks, task.id)
	b.mu.Unlock()
	task.inbox.Close()
	if cancelled {
		// The session is ending: nobody is left to tell, and the task
		// stays recorded as running, so a resume says it was lost.
		return
	}
	b.w.AppendBackground(session.Background{Task: task.id, State: session.BackgroundFinished})
	b.inbox.Post(inbox.Round{Type: client.Notification, Source: "agent " + task.id,
		Text: notificationText(task, rep), Summary: summary(task, rep)})
}

func (t *bgTask) label() string {
	if t.desc == "" {
		return t.name + " subagent"
	}
	return fmt.Sprintf("%s subagent: %s", t.name, t.desc)
}

func summary(t *bgTask, rep agent.Report) string {
	took := time.Since(t.started).Round(100 * time.Millisecond)
	if rep.Err != "" {
		return fmt.Sprintf("%s (%s) stopped after %s: %s", t.label(), t.id, took, rep.Err)
	}
	return fmt.Sprintf("%s (%s) finished in %s, %d turns, %d tool calls", t.label(), t.id, took, rep.Turns, rep.ToolCalls)
}

// notificationText is what the parent's model reads when a task ends.
func notificationText(t *bgTask, rep agent.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<task-notification>\nBackground task %s (the %s) ", t.id, t.label())
	if rep.Err != "" {
		fmt.Fprintf(&b, "did not finish (%s): %s\n", rep.Subtype, rep.Err)
		if rep.Text != "" {
			b.WriteString("Its last words before it stopped:\n" + rep.Text + "\n")
		}
	} else {
		text := strings.TrimSpace(rep.Text)
		if text == "" {
			text = "(it wrote no report)"
		}
		b.WriteString("finished. Its report:\n" + text + "\n")
	}
	b.WriteString("</task-notification>")
	return b.String()
}

// SendMessage delivers text from the parent to a running task
// (agent.Messenger).
func (b *background) SendMessage(_ context.Context, to, text string) (string, error) {
	b.mu.Lock()
	task, ok := b.tasks[to]
	b.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("no background task %q is running (it may have finished: its report comes as a notification)", to)
	}
	if !task.inbox.Post(inbox.Round{Type: client.Teammate, Source: "parent",
		Text: "<teammate-message from=\"parent\">\n" + text + "\n</teammate-message>"}) {
		return "", fmt.Errorf("background task %s has just finished; its report comes as a notification", to)
	}
	return fmt.Sprintf("Message queued for background task %s: it reads it at its next step. There is no inline reply.", to), nil
}

// taskLink is a running task's side of the messages: its own inbox, and
// a send_message that writes to the parent.
type taskLink struct {
	b    *background
	task *bgTask
}

func (l *taskLink) SendMessage(_ context.Context, _, text string) (string, error) {
	src := "agent " + l.task.id
	if !l.b.inbox.Post(inbox.Round{Type: client.Teammate, Source: src,
		Text: fmt.Sprintf("<teammate-message from=%q>\n%s\n</teammate-message>", l.task.id, text)}) {
		return "", errors.New("the main agent's session has ended")
	}
	return "Message queued for the main agent: it reads it at its next step.", nil
}

// runningTask is a running background subagent, as a task list shows it.
type runningTask struct {
	ID, Kind, Label string
	Started         time.Time
}

// Running lists the running background subagents, oldest first, for a
// task list (/tasks).
func (b *background) Running() []runningTask {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]runningTask, 0, len(b.tasks))
	for _, t := range b.tasks {
		out = append(out, runningTask{ID: t.id, Kind: "agent", Label: t.label(), Started: t.started})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// Stop cancels a running task; the parent is told it stopped.
func (b *background) Stop(id string) bool {
	b.mu.Lock()
	t, ok := b.tasks[id]
	b.mu.Unlock()
	if ok {
		t.cancel()
	}
	return ok
}

// close cancels every task and waits for them to end.
func (b *background) close() {
	b.mu.Lock()
	b.cancel()
	b.mu.Unlock()
	b.wg.Wait()
}

// lostWork says what background work the last process of a resumed
// session lost, and records that it was said; "" when none.
func lostWork(tr *session.Transcript, w *session.Writer) string {
	lost := tr.Running()
	if len(lost) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<system-reminder>This session was interrupted while background work was running; that work was lost " +
		"and its results will never arrive:\n")
	for _, t := range lost {
		fmt.Fprintf(&b, "- task %s (%s), started %s\n", t.Task, t.Label, t.Time.Local().Format(time.DateTime))
		w.AppendBackground(session.Background{Task: t.Task, State: session.BackgroundLost})
	}
	b.WriteString("Start it again if it is still needed.</system-reminder>")
	return b.String()
}

// backgroundEntry reports whether the entry layer cfg runs drains the
// inbox: every entry does (headless, the SDK, ACP and the TUI).
func backgroundEntry(*Config) bool { return true }

// agentRunner is what the agent tool runs subagents with: the subagents,
// able to launch in the background only where the entry drains the inbox.
func (c *Session) agentRunner() agent.Runner {
	if c.bgEntry {
		return launcher{c.agents}
	}
	return struct{ agent.Runner }{c.agents}
}

// launcher is the subagents with background launches.
type launcher struct{ *subagents }

func (l launcher) Launch(ctx context.Context, t agent.Task) (string, error) {
	if l.bg == nil {
		return "", errors.New("this session runs no background work")
	}
	return l.bg.Launch(ctx, t)
}

// startBackground builds the session's inbox, background runner and
// schedules; it offers send_message where background subagents are
// offered, and the schedule tools in the interactive UI (a headless run
// ends when its model stops, and its schedules with it).
func (c *Session) startBackground(cfg *Config, policy interface{ Offered(string) bool }, notices io.Writer) {
	c.inbox = inbox.New()
	c.sess.schedRes = startSchedResume(cfg, c.sess)
	c.sched = schedule.New(c.inbox, schedule.WithOnSkip(func(j schedule.Job) {
		fmt.Fprintf(notices, "schedule %s: a firing was skipped, the previous one still runs\n", j.ID)
	}), schedule.WithFirstID(c.sess.schedN), schedule.WithRecord(c.sess.schedRes.record))
	c.bg = newBackground(c.agents, c.inbox, c.sess.w)
	c.bg.label = cfg.LabelAsker
	c.bg.n = c.sess.tasks
	c.agents.bg = c.bg
	if c.sess.lost != "" {
		c.inbox.Post(inbox.Round{Type: client.Notification, Source: "resume", Text: c.sess.lost})
	}
	c.closers = append(c.closers, func() {
		c.sched.Close()
		c.inbox.Close()
		c.bg.close()
	})
	if _, ok := c.reg.Lookup(agent.Name); ok && c.bgEntry && policy.Offered(agent.SendMessageName) {
		c.reg.Register(agent.NewSendMessage(c.bg, ""))
	}
	if cfg.Interactive {
		for _, t := range schedule.Tools(c.sched) {
			if policy.Offered(t.Name()) {
				c.reg.Register(t)
			}
		}
	}
}

// recordRound writes a round from the inbox to the transcript.
func (c *Session) recordRound(r inbox.Round) { c.sess.w.AppendRound(r.Type.String(), r.Source) }

// tellLost puts what background work was lost into the first round, after
// its content; a Retry resend takes no new content, so then it waits for
// the inbox.
func tellLost(op *opened, lost string) {
	switch {
	case lost == "":
	case op.firstType == client.Retry || len(op.first) == 0:
		op.lost = lost
	default:
		op.first = append(op.first, llm.Part{Text: lost})
	}
}

// backgroundTasks lists the session's running background work for a task
// list (/tasks): background subagents, then schedules.
func (c *Session) backgroundTasks() []runningTask {
	if c.bg == nil {
		return nil
	}
	out := c.bg.Running()
	for _, j := range c.sched.List() {
		out = append(out, runningTask{ID: j.ID, Kind: "schedule", Label: j.Spec + ": " + j.Prompt})
	}
	return out
}

// stopBackgroundTask stops a background subagent or deletes a schedule.
func (c *Session) stopBackgroundTask(id string) bool {
	if c.bg == nil {
		return false
	}
	return c.bg.Stop(id) || c.sched.Delete(id)
}
