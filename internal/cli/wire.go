package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/sdk"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/skills"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// core is what both entry layers drive: the tools, the policy, the
// session and its chat, the hooks and the client. The entry adds its own
// approver and update callback to the scheduler options and runs the loop.
type core struct {
	ws     *tools.Workspace
	reg    *tools.Registry
	policy *permission.Policy
	sess   *opened
	chat   *chat.Chat
	hooks  *hooks.Runner
	client *client.Client
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
	// approver and output before the first round.
	agents *subagents
	// mcp holds the MCP servers' states, for the init message.
	mcp      []headless.MCPServer
	mcpm     *mcp.Manager // the servers, for their prompts; nil without any
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

	// front applies a custom command's allowed-tools and model to its
	// prompt (tui_hooks.go); nil outside the TUI.
	front *customFront
}

// agentNames lists the subagents the agent tool offers, if it is offered.
func (c *core) agentNames() []string {
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

// close releases what buildCore acquired, last first.
func (c *core) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

// recordToolState writes a finished call's state to the transcript; each
// entry layer calls it from its scheduler update callback.
func (c *core) recordToolState(call *scheduler.Call) {
	if st := call.State(); st.Terminal() {
		c.sess.w.AppendToolState(session.ToolState{Time: time.Now(), CallID: call.CallID, Name: call.Name,
			State: string(st), ErrorType: call.ErrorType()})
	}
}

// keepResults puts tool results that were not sent into the history and
// the transcript, durably: the next request (the next prompt, or a resumed
// session's first) carries the real results of the calls that finished.
func (c *core) keepResults(parts []llm.Part) {
	msg := llm.Message{Role: llm.RoleUser, Parts: parts}
	c.chat.SetHistory(append(c.chat.History(), msg))
	c.sess.w.Append(msg)
	if err := c.sess.w.Sync(); err != nil {
		slog.Error("saving the session", "err", err)
	}
}

// runHeadless builds the layers for cfg and runs the headless loop.
func runHeadless(ctx context.Context, cfg *config, sio IO, log *slog.Logger) int {
	c, code, err := buildCore(ctx, cfg, sio, log, sio.Stderr)
	if err != nil {
		return fail(sio, code, err.Error())
	}
	defer c.close()
	sess, ch := c.sess, c.chat
	opts := append(c.schedOps,
		scheduler.WithOnUpdate(c.recordToolState),
	)
	hcfg := headless.Config{
		Format: cfg.format, SessionID: sess.id, Model: cfg.model, CWD: c.ws.Root(),
		Tools: c.reg.Names(), Agents: c.agentNames(), MCPServers: c.mcp, PermissionMode: cfg.mode, Version: Version,
		Skills:          c.skillNames(),
		MaxSessionTurns: cfg.opts.MaxSessionTurns, MaxToolCalls: cfg.opts.MaxToolCalls,
		MaxWallTime: cfg.opts.MaxWallTime, Stdout: sio.Stdout, Stderr: sio.Stderr,
		StructuredOutput: structuredName(cfg),
		PartialMessages:  cfg.opts.PartialMessages,
		Recorder:         c.recorder(),
	}
	if c.bgEntry {
		hcfg.Inbox = c.inbox
	}
	c.agents.format, c.agents.stdout, c.agents.stderr = cfg.format, sio.Stdout, sio.Stderr
	log.Info("headless run", "session", sess.id, "model", cfg.model, "mode", cfg.mode, "stream_input", cfg.streamInput)
	if cfg.streamInput {
		s := sdk.New(hcfg)
		s.Resume(sess.first, sess.firstType)
		c.agents.approver = s
		sched := scheduler.New(c.reg, append(opts, scheduler.WithApprover(hooks.Approver(c.hooks, s)))...)
		return s.Serve(ctx, c.client, &runner{sched: sched, chat: ch, cp: c.cp}, sio.Stdin, sdk.Controls{
			SetPermissionMode: func(m string) error {
				pm, err := permission.ParseMode(m)
				if err != nil {
					return err
				}
				return c.policy.SetMode(pm)
			},
			SetModel: func(m string) error {
				if err := checkModel(cfg, m); err != nil {
					return err
				}
				ch.SetModel(m)
				return nil
			},
			SetEffort: ch.SetEffort,
			ContextUsage: func() sdk.ContextUsage {
				e := ch.Estimate()
				return sdk.ContextUsage{Model: ch.Config().Model, ContextWindow: ch.Config().ContextWindow,
					System: e.System, Tools: e.Tools, History: e.History, LastPromptTokens: e.LastPrompt}
			},
			Models:          func() []sdk.Model { return availableModels(cfg, ch.Config().Model) },
			MarkUserMessage: c.cp.markUserMessage,
			RewindFiles:     c.rewindFiles(),
			AddAgents:       c.addSDKAgents,
			AddMCPServers: func(raw map[string]json.RawMessage, embedded []string, send sdk.MCPSender) ([]headless.MCPServer, []string, error) {
				return c.addSDKServers(ctx, cfg, raw, embedded, send, log, sio.Stderr)
			},
		})
	}
	// No one answers questions here: a skill the model loads is read
	// without granting its allowed-tools.
	c.policy.SetUnattended(true)
	sched := scheduler.New(c.reg, opts...)
	return headless.RunFrom(ctx, hcfg, c.client, &runner{sched: sched, chat: ch, cp: c.cp}, sess.first, sess.firstType)
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

// runner adapts the scheduler to the headless loop, and refuses to run a
// call whose id history already answered (some backends replay ids) or
// that repeats an earlier call id of the same reply.
type runner struct {
	sched *scheduler.Scheduler
	chat  *chat.Chat
	cp    *checkpointer
}

func (r *runner) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]headless.Outcome, error) {
	fcs := make([]llm.FunctionCall, len(calls))
	for i, c := range calls {
		fcs[i] = llm.FunctionCall{ID: c.CallID, Name: c.Name, Args: c.Args}
	}
	out := make([]headless.Outcome, len(calls))
	dup := repair.DuplicateCalls(r.chat.History(), fcs)
	seen := make(map[string]bool, len(calls))
	var reqs []scheduler.Request
	var idx []int
	for i, c := range calls {
		switch {
		case dup[c.CallID]:
			out[i] = headless.Outcome{Response: *repair.DuplicateResponse(fcs[i]).Response, Args: c.Args}
			continue
		case c.RepeatOf != "" || (c.CallID != "" && seen[c.CallID]):
			// The same new id twice in one reply: the first copy runs,
			// each extra one is answered without running.
			out[i] = headless.Outcome{Response: *repair.RepeatedResponse(fcs[i]).Response, Args: c.Args}
			continue
		}
		seen[c.CallID] = true
		reqs = append(reqs, scheduler.Request{CallID: c.CallID, Name: c.Name, Args: c.Args, WasOutputTruncated: c.WasOutputTruncated})
		idx = append(idx, i)
	}
	r.cp.beforeTools(ctx, calls)
	done, err := r.sched.Run(ctx, reqs)
	for k, call := range done {
		resp := call.Response()
		out[idx[k]] = headless.Outcome{
			Response: resp,
			Args:     call.Args,
			Denied:   call.ErrorType() == scheduler.ErrorTypeExecutionDenied,
		}
	}
	return out, err
}

func structuredName(cfg *config) string {
	if cfg.schema == nil {
		return ""
	}
	return tools.StructuredOutputName
}

// promptHooks runs SessionStart before the session's first prompt and
// UserPromptSubmit before each; their context is added as text after the
// prompt, and a blocking UserPromptSubmit refuses it. SessionStart runs
// once; its context waits for the first prompt that is sent.
func (c *core) promptHooks(ctx context.Context, parts []llm.Part) ([]llm.Part, error) {
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
