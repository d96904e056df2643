package core

import (
	"context"
	"github.com/plyhq/ply/internal/ide"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/skills"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// Session is what every entry layer drives: the tools, the policy, the
// session and its chat, the hooks and the client. The entry adds its own
// approver and update callback to the scheduler options and runs the loop.
type Session struct {
	cfg    *Config // what New was given
	log    *slog.Logger
	ws     *tools.Workspace
	reg    *tools.Registry
	policy *permission.Policy
	// policyCfg is what policy was built from; a worktree subagent's
	// policy is built from it too.
	policyCfg permission.Config
	sess      *opened
	chat      *chat.Chat
	hooks     *hooks.Runner
	client    *client.Client
	// modes keeps the system prompt in step with the approval mode, and
	// holds the notes for the next message.
	modes *modeSync
	// startSource is how the session began, for the SessionStart hook
	// before its first prompt; "" once it ran. startContext is what it
	// answered, until a prompt carries it.
	startMu      sync.Mutex
	startSource  string
	startContext string
	// loops is the client's loop detector; the TUI raises its per-turn
	// cap when the user says go on.
	loops *loopdetect.Detector
	todos *tools.TodoList
	// agents runs the agent tool's subagents; the entry layer sets its
	// approver and loop before the first round.
	agents *subagents
	// mcp holds the MCP servers' states, for the init message.
	mcp      []MCPServer
	mcpm     *mcp.Manager // the servers, for their prompts; nil without any
	mcpBG    *mcpLater    // servers connecting behind the UI (mcp_background.go)
	schedOps []scheduler.Option
	cp       *checkpointer // nil when checkpointing is off
	closers  []func()
	// Background tasks: every kind of background work the
	// session runs, for task_stop and the TUI's /tasks.
	tasks *tools.TaskList
	// skills are the session's skills (skills.go).
	skills *skills.Set

	// Background work (background subagents, notifications, send_message;
	// background.go): the session's inbox of rounds no user typed, and
	// the background subagents. bgEntry: the entry layer drains the inbox.
	inbox   *inbox.Inbox
	bg      *background
	bgEntry bool
	sched   *schedule.Schedules

	// front applies the front matter of the custom command whose prompt
	// is sent (usercmds.go); notices gets what the user must hear of it.
	front   *customcmd.Front
	notices io.Writer
	// ide is the editor the session runs in, when the entry offers one
	// (ide.go); nil otherwise.
	ide *ide.Client
}

// agentNames lists the subagents the agent tool offers, if it is offered.
func (c *Session) agentNames() []string {
	t, ok := c.reg.Lookup(agent.Name)
	if !ok {
		return nil
	}
	var out []string
	for _, d := range t.(*agent.Tool).Definitions() {
		out = append(out, d.Name)
	}
	return out
}

// Close releases what New acquired, last first.
func (c *Session) Close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

// recordToolState writes a finished call's state to the transcript; each
// entry layer calls it from its scheduler update callback.
func (c *Session) recordToolState(call *scheduler.Call) {
	if st := call.State(); st.Terminal() {
		c.sess.w.AppendToolState(session.ToolState{Time: time.Now(), CallID: call.CallID, Name: call.Name,
			State: string(st), ErrorType: call.ErrorType()})
	}
}

// keepResults puts tool results that were not sent into the history and
// the transcript, durably: the next request (the next prompt, or a resumed
// session's first) carries the real results of the calls that finished.
func (c *Session) keepResults(parts []llm.Part) {
	msg := llm.Message{Role: llm.RoleUser, Parts: parts}
	c.chat.SetHistory(append(c.chat.History(), msg))
	c.sess.w.Append(msg)
	if err := c.sess.w.Sync(); err != nil {
		slog.Error("saving the session", "err", err)
	}
}

const defaultContextWindow = 128_000

// newLoopDetector configures the loop guards from the "model" setting:
// skipLoopDetection false switches the heuristic tier on (it is off by
// default), maxToolCallsPerTurn sets the always-on per-turn cap.
func newLoopDetector(m settings.Model) *loopdetect.Detector {
	return loopdetect.New(loopdetect.Options{
		Heuristics:      m.SkipLoopDetection != nil && !*m.SkipLoopDetection,
		MaxCallsPerTurn: m.MaxToolCallsPerTurn,
	})
}

// guard adapts the loop detector to the client's interface.
type guard struct{ d *loopdetect.Detector }

func (g guard) Reset()      { g.d.Reset() }
func (g guard) StartRound() { g.d.StartRound() }
func (g guard) Retry()      { g.d.Retry() }
func (g guard) ToolCall(name, args string) *client.Loop {
	return loopOf(g.d.CheckToolCall(name, args))
}
func (g guard) Content(s string) *client.Loop { return loopOf(g.d.CheckContent(s)) }
func (g guard) Thought(s string) *client.Loop { return loopOf(g.d.CheckThought(s)) }

func loopOf(l *loopdetect.Loop) *client.Loop {
	if l == nil {
		return nil
	}
	return &client.Loop{Guard: string(l.Guard), Message: l.Message}
}

// Runner adapts the scheduler to the entry's loop, and refuses to run a
// call whose id history already answered (some backends replay ids) or
// that repeats an earlier call id of the same reply.
type Runner struct {
	sched *scheduler.Scheduler
	chat  *chat.Chat
	// cp takes a checkpoint before each batch that may write; without it
	// (ACP), base only waits for the session's first checkpoint before
	// such a batch, which every prompt's checkpoint may rest on.
	cp, base *checkpointer
}

func (r *Runner) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]loop.Outcome, error) {
	fcs := make([]llm.FunctionCall, len(calls))
	for i, c := range calls {
		fcs[i] = llm.FunctionCall{ID: c.CallID, Name: c.Name, Args: c.Args}
	}
	out := make([]loop.Outcome, len(calls))
	var dup map[string]bool
	r.chat.ReadHistory(func(h []llm.Message) { dup = repair.DuplicateCalls(h, fcs) })
	seen := make(map[string]bool, len(calls))
	var reqs []scheduler.Request
	var idx []int
	for i, c := range calls {
		switch {
		case dup[c.CallID]:
			out[i] = loop.Outcome{Response: *repair.DuplicateResponse(fcs[i]).Response, Args: c.Args}
			continue
		case c.RepeatOf != "" || (c.CallID != "" && seen[c.CallID]):
			// The same new id twice in one reply: the first copy runs,
			// each extra one is answered without running.
			out[i] = loop.Outcome{Response: *repair.RepeatedResponse(fcs[i]).Response, Args: c.Args}
			continue
		}
		seen[c.CallID] = true
		reqs = append(reqs, scheduler.Request{CallID: c.CallID, Name: c.Name, Args: c.Args, WasOutputTruncated: c.WasOutputTruncated})
		idx = append(idx, i)
	}
	// The tools' own set-up (the shell's guardian) runs while the
	// checkpoint is taken; the calls run only after it.
	r.sched.Warm(reqs)
	if r.cp != nil {
		r.cp.beforeTools(ctx, calls)
	} else {
		r.base.beforeWrite(ctx, calls)
	}
	done, err := r.sched.Run(ctx, reqs)
	for k, call := range done {
		resp := call.Response()
		start, exec, end := call.Times()
		if !exec.IsZero() {
			start = exec // the call's run, not its wait for approval
		}
		out[idx[k]] = loop.Outcome{
			Response: resp,
			Args:     call.Args,
			Denied:   call.ErrorType() == scheduler.ErrorTypeExecutionDenied,
			Start:    start, End: end,
		}
	}
	return out, err
}

// promptHooks runs SessionStart before the session's first prompt and
// UserPromptSubmit before each; their context is added as text after the
// prompt, and a blocking UserPromptSubmit refuses it. SessionStart runs
// once; its context waits for the first prompt that is sent.
func (c *Session) promptHooks(ctx context.Context, parts []llm.Part) ([]llm.Part, error) {
	var text strings.Builder
	for _, p := range parts {
		if p.Response == nil {
			text.WriteString(p.Text)
		}
	}
	c.startMu.Lock()
	defer c.startMu.Unlock()
	if c.startSource != "" {
		c.startContext = c.hooks.SessionStart(ctx, c.startSource)
		c.startSource = ""
	}
	block, reason, more := c.hooks.UserPromptSubmit(ctx, text.String())
	if block {
		return nil, &client.PromptRefused{By: "a UserPromptSubmit hook", Reason: reason}
	}
	for _, e := range []string{c.startContext, more} {
		if e != "" {
			parts = append(parts, llm.Part{Text: e})
		}
	}
	c.startContext = ""
	return parts, nil
}
