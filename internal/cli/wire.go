package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
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
	"github.com/plyhq/ply/internal/sysprompt"
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

// buildCore builds the layers for cfg. notices receives what hooks say to
// the user. On error it returns the exit code and has released everything.
func buildCore(ctx context.Context, cfg *config, sio IO, log *slog.Logger, notices io.Writer) (_ *core, code int, err error) {
	c := &core{}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	roots := append([]string{cfg.workspace}, cfg.opts.IncludeDirs...)
	ws, err := tools.NewWorkspace(roots...)
	if err != nil {
		return nil, exitcode.Input, err
	}
	c.ws = ws
	// git runs for the snapshot only in a trusted folder: a repository's
	// own config can name programs for git to run.
	repo := startSnapshot(ctx, ws.Root(), cfg.trust.trusted, cfg.childEnv)
	// MCP servers start now, in parallel with the rest of start-up, and
	// are waited for only just before the tool list is needed; ctx
	// (Ctrl+C) ends a slow start.
	mcpServers := startMCP(ctx, cfg, log)
	c.mcpm = mcpServers
	if mcpServers != nil {
		c.closers = append(c.closers, func() {
			if err := mcpServers.Close(); err != nil {
				log.Warn("closing MCP servers", "err", err)
			}
		})
	}
	shell := tools.NewShell(ws)
	shell.SetEnv(cfg.childEnv)
	n := cfg.settings.Tools.ShellOutputLimit
	if n < 0 {
		return nil, exitcode.Config, fmt.Errorf("settings: tools.shellOutputLimit is %d: it must be a positive number of characters", n)
	}
	shell.SetOutputLimit(n)
	sandboxCleanup, err := setupSandbox(cfg.opts, cfg.allowUnsandboxed(), ws, shell, sio.Getenv, sio.Stderr)
	if err != nil {
		return nil, exitcode.Input, err
	}
	// Closers run last first: the jobs end before their temporary
	// directory goes.
	c.closers = append(c.closers, sandboxCleanup, func() { stopJobs(shell, sio.Stderr) })
	c.todos = tools.NewTodoList(nil, func(ts []tools.Todo) {
		if c.sess != nil {
			c.sess.w.AppendTodos(ts)
		}
	})
	c.agents = &subagents{log: log}
	provider := cfg.wire.newProvider(cfg.baseURL, cfg.apiKey, cfg.model, cfg.headers, cfg.net)
	asker := &modelAsker{provider: provider, model: cfg.model}
	reg := tools.NewRegistry(
		tools.NewListDirectory(ws),
		tools.NewReadFile(ws),
		tools.NewGrep(ws),
		tools.NewGlob(ws),
		tools.NewReadManyFiles(ws),
		tools.NewEdit(ws),
		tools.NewWriteFile(ws),
		shell,
		tools.NewTodoWrite(c.todos),
		tools.NewWebFetch(tools.WebFetchOptions{Asker: asker, AllowPrivate: cfg.user.WebFetch.AllowPrivate}),
	)
	c.tasks = registerTaskTools(reg, shell)
	// web_search, when the user configured a backend.
	if ws, err := webSearchTool(cfg.user.Tools.WebSearch, sio.Getenv); err != nil {
		fmt.Fprintf(notices, "ply: warning: settings tools.webSearch: %v; web_search is not offered\n", err)
	} else if ws != nil {
		reg.Register(ws)
	}
	if cfg.home != "" {
		reg.Register(tools.NewSaveMemory(filepath.Join(cfg.home, sysprompt.InstructionNames[0])))
	}
	projectAgents := ""
	if cfg.trust.trusted {
		projectAgents = projectAgentsDir(cfg.workspace)
	}
	defs, defErrs := agent.Load(filepath.Join(cfg.home, "agents"), projectAgents)
	for _, e := range defErrs {
		fmt.Fprintf(notices, "ply: warning: %v (skipped)\n", e)
	}
	c.bgEntry = backgroundEntry(cfg)
	reg.Register(agent.NewTool(defs, c.agentRunner()))
	c.reg = reg
	appendPrompt := cfg.opts.AppendSystemPrompt
	if cfg.schema != nil {
		reg.Register(tools.NewStructuredOutput(cfg.schema))
		appendPrompt += "\n\nThis run must end with a call to " + tools.StructuredOutputName +
			" whose arguments are the final answer, matching its schema. Do the work first, then make that call once."
	}

	mode, err := permission.ParseMode(cfg.mode)
	if err != nil {
		return nil, exitcode.Input, err
	}
	var ruleSets []permission.RuleSet
	for _, f := range cfg.settingsFiles {
		p := f.Settings.Permissions
		ruleSets = append(ruleSets, permission.RuleSet{Source: f.Path, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny})
	}
	policy, err := permission.New(permission.Config{
		Mode: mode, Workspace: ws, Settings: ruleSets,
		AllowedTools: append(slices.Clone(cfg.opts.AllowedTools), trustedServers(cfg.mcp)...), ExcludeTools: cfg.opts.ExcludeTools, CoreTools: cfg.opts.CoreTools,
		ReadOnlyProfile: readOnlyProfile(notices), AllowUnconfined: cfg.allowUnsandboxed(),
	})
	if err != nil {
		// A rule that does not parse could be a deny rule that would
		// then deny nothing: refuse to start.
		return nil, exitcode.Input, errors.New("bad permission rule: " + strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	c.policy = policy
	c.skills = loadSkills(cfg, ws, policy, reg, notices)
	// Offered only in plan mode (modeSync adds and removes it as the mode
	// changes): approving the plan is what ends it.
	exitPlan := tools.NewExitPlanMode(func() error {
		if policy.Mode() != permission.ModePlan {
			return nil
		}
		return policy.SetMode(permission.ModeDefault)
	})
	if mode == permission.ModePlan {
		reg.Register(exitPlan)
	}
	offerExit := policy.Offered(tools.ExitPlanModeName)
	for _, n := range reg.Names() {
		if !policy.Offered(n) {
			reg.Remove(n)
		}
	}

	if cfg.prompt != "" {
		cfg.prompt = expandAtPaths(cfg.prompt, ws)
	}
	sess, code, err := openSession(cfg, ws.Root(), log, sio.Stderr)
	if err != nil {
		return nil, code, err
	}
	c.sess = sess
	c.startSource = sessionSource(sess.history == nil)
	c.startBackground(cfg, policy, notices)
	c.tasks.Add(c.backgroundToolTasks) // background subagents and schedules in /tasks and task_stop
	// What the session keeps beside its transcript (spilled outputs) is
	// readable by the read tools, for this session only, and is removed
	// with it.
	artifacts := sess.w.Dir()
	if err := os.MkdirAll(artifacts, 0o700); err != nil {
		return nil, exitcode.Error, fmt.Errorf("creating the session directory: %w", err)
	}
	if err := ws.AddReadOnly(artifacts); err != nil {
		return nil, exitcode.Error, err
	}
	shell.SetOutputDir(filepath.Join(artifacts, "shell-output"))
	reopenSkills(c.skills, sess.history)
	if len(sess.todos) > 0 {
		var ts []tools.Todo
		if err := json.Unmarshal(sess.todos, &ts); err != nil {
			log.Warn("the saved task list does not decode; starting without one", "err", err)
		} else {
			c.todos.Restore(ts)
		}
	}
	c.closers = append(c.closers, func() {
		// The interactive UI may have closed it already (closeSession).
		if err := sess.w.Close(); err != nil && !errors.Is(err, session.ErrClosed) {
			fmt.Fprintf(sio.Stderr, "ply: saving the session: %v\n", err)
		}
	})

	c.mcp = addMCPTools(ctx, mcpServers, reg, policy.Offered, notices, c.deferral(cfg))
	instructions := sysprompt.LoadInstructions(cfg.home, cfg.workspace, notices)
	started := time.Now()
	sysEnv := sysprompt.Env{
		Workspace: ws.Root(), Tools: reg.OfferedNames(), Now: started,
		Override: cfg.opts.SystemPrompt, Append: strings.TrimSpace(appendPrompt),
		Instructions: instructions, Mode: cfg.mode, Interactive: cfg.interactive || cfg.streamInput,
		Sandbox: sandboxSummary(cfg.opts), Repo: repo(),
	}
	system := sysprompt.Build(sysEnv)
	hookRunner, err := newHooks(cfg, ws.Root(), sess, policy, notices)
	if err != nil {
		return nil, exitcode.Config, err
	}
	c.hooks = hookRunner
	retry := chat.DefaultRetryPolicy
	if s := sio.Getenv("PLY_RETRY_DELAY_SCALE"); s != "" {
		// For tests and impatient users: scales every retry delay.
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 {
			return nil, exitcode.Config, fmt.Errorf("PLY_RETRY_DELAY_SCALE=%q is not a non-negative number", s)
		}
		retry = retry.Scale(f)
	}
	asker.retry = retry
	chatCfg := chat.Config{
		Model:  cfg.model,
		System: system,
		Tools:  reg.Decls(),
		Retry:  retry,
		// Without a configured window, assume one most current models
		// have; compressing at 70% of it keeps long sessions alive.
		ContextWindow:   contextWindow(cfg, cfg.model),
		MaxOutputTokens: cfg.maxOutput,
		Effort:          cfg.effort,
		Repair: func(h []llm.Message) []llm.Message {
			out, rep := repair.Repair(h)
			if rep.Changed() {
				log.Warn("repaired history before sending", "report", rep.String())
			}
			return out
		},
		Logger: log,
		Spill:  dirSpiller{filepath.Join(artifacts, "tool-results")},
	}
	// hooks (skills area): PreCompact and PostCompact.
	if hookRunner.Has(hooks.PreCompact) || hookRunner.Has(hooks.PostCompact) || hookRunner.Has(hooks.SessionStart) {
		chatCfg.Compact = hookRunner
	}
	ch := chat.New(provider, chatCfg, sess.history)
	ch.OnAppend(sess.w.Append)
	c.chat = ch

	c.closers = append(c.closers, func() {
		// SessionEnd runs even after Ctrl+C, with its own deadline.
		ectx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hookRunner.SessionEnd(ectx, "other")
	})
	c.loops = newLoopDetector(cfg.settings.Model)
	c.cp = newCheckpointer(cfg, ws, sess, reg, log)
	c.closers = append(c.closers, c.cp.close) // checkpoints: the change tracker's watches
	modes := &modeSync{reg: reg, chat: ch, exit: exitPlan, offerExit: offerExit, env: sysEnv}
	policy.Watch(modes)
	c.client = client.New(ch, client.Options{
		Reminders:   modes,
		Loop:        guard{c.loops},
		NextSpeaker: true,
		Stop:        hookRunner.Stop,
		// The system prompt gives the date at start; a later query on
		// another day is told the new one.
		Clock: time.Now, DateShown: started,
		OnUserQuery: c.onUserQuery,
	})
	c.schedOps = []scheduler.Option{
		scheduler.WithPolicy(policy),
		scheduler.MaxConcurrencyFromEnv(),
		scheduler.WithHooks(hooks.ForScheduler(hookRunner)),
		scheduler.WithSpillDir(filepath.Join(artifacts, "tool-output")),
	}
	a := c.agents
	a.provider, a.model, a.base, a.reg, a.schedOps, a.sessionID = provider, cfg.model, chatCfg, reg, c.schedOps, sess.id
	a.env = sysprompt.Env{Workspace: ws.Root(), Instructions: instructions, Subagent: true,
		Mode: cfg.mode, Interactive: cfg.interactive || cfg.streamInput, Sandbox: sandboxSummary(cfg.opts)}
	a.loops = cfg.settings.Model
	a.mode = policy
	a.hooks = hookRunner
	return c, 0, nil
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

// newHooks builds the hook runner from the merged settings; nil (no
// hooks) when none are configured.
func newHooks(cfg *config, root string, sess *opened, policy *permission.Policy, stderr io.Writer) (*hooks.Runner, error) {
	if len(cfg.settings.Hooks) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(map[string]any{"hooks": cfg.settings.Hooks})
	if err != nil {
		return nil, fmt.Errorf("settings hooks: %w", err)
	}
	hc, err := hooks.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("settings hooks: %w", err)
	}
	return hooks.NewRunner(hc, hooks.Options{
		Dir: root, SessionID: sess.id, TranscriptPath: sess.w.Path(), Mode: currentMode{policy}, Env: cfg.childEnv,
		OnWarning: func(w hooks.Warning) { fmt.Fprintf(stderr, "ply: warning: %v\n", w) },
		OnMessage: func(event, text string) { fmt.Fprintf(stderr, "ply: %s hook: %s\n", event, text) },
	})
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

// sessionSource names how the session began, for SessionStart.
func sessionSource(fresh bool) string {
	if fresh {
		return "startup"
	}
	return "resume"
}
