package core

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
	"time"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tools"
)

// New builds the layers for config. notices receives what hooks say to
// the user. On error it returns the exit code and has released everything.
// Each step fills fields of the session; the order matters, as later steps
// use what earlier ones made and the closers run last first.
func New(ctx context.Context, config Config, notices io.Writer, log *slog.Logger) (_ *Session, code int, err error) {
	cfg := &config
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if notices == nil {
		notices = io.Discard
	}
	c := &Session{cfg: cfg, log: log, notices: notices}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	repo, err := c.openWorkspace(ctx, cfg, log)
	if err != nil {
		return nil, exitcode.Input, err
	}
	shell, code, err := c.newShell(cfg)
	if err != nil {
		return nil, code, err
	}
	provider := cfg.NewProvider()
	// The first request's connection opens while the session is built,
	// not after.
	c.WarmProvider()
	asker := c.registerTools(cfg, cfg.Getenv, notices, shell, provider)
	c.registerAgents(cfg, log, notices)
	appendPrompt := c.offerStructuredOutput(cfg)
	modes, err := c.newPolicy(cfg, notices)
	if err != nil {
		return nil, exitcode.Input, err
	}
	if code, err := c.openSession(cfg, log, notices, shell); err != nil {
		return nil, code, err
	}
	if !cfg.MCPInBackground {
		c.mcp = addMCPTools(ctx, c.mcpm, c.reg, c.policy.Offered, notices, c.deferral(cfg))
	}
	sysEnv := c.systemEnv(cfg, appendPrompt, repo, notices)
	if c.hooks, err = newHooks(cfg, c.ws.Root(), c.sess, c.policy, notices); err != nil {
		return nil, exitcode.Config, err
	}
	chatCfg, err := c.newChat(cfg, cfg.Getenv, log, answerSignal{provider, c}, asker, sysEnv)
	if err != nil {
		return nil, exitcode.Config, err
	}
	c.newClient(cfg, log, modes, sysEnv, notices)
	c.newFront()
	c.cp.setNotices(notices)
	c.configureSubagents(cfg, provider, chatCfg, sysEnv)
	if cfg.MCPInBackground {
		c.connectMCPLater(cfg, notices) // mcp_background.go
	}
	return c, 0, nil
}

// openWorkspace sets c.ws to the workspace's roots (cfg's and the
// --include-directories ones) and starts what runs beside the rest of
// start-up: the git snapshot, whose answer repo waits for, and the MCP
// servers.
func (c *Session) openWorkspace(ctx context.Context, cfg *Config, log *slog.Logger) (repo func() *sysprompt.Repo, err error) {
	roots := append([]string{cfg.Workspace}, cfg.IncludeDirs...)
	ws, err := tools.NewWorkspace(roots...)
	if err != nil {
		return nil, err
	}
	c.ws = ws
	// A repository's own config can name programs for git to run: in a
	// folder that is not trusted, the snapshot's git runs confined.
	repo = startSnapshot(ctx, ws.Root(), cfg.Trusted, cfg.ChildEnv)
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
	return repo, nil
}

// newShell builds the shell tool with the child environment, the output
// limit of the settings and the sandbox the flags ask for. On error it
// also returns the exit code.
func (c *Session) newShell(cfg *Config) (*tools.Shell, int, error) {
	shell := tools.NewShell(c.ws)
	shell.SetEnv(cfg.ChildEnv)
	n := cfg.Settings.Tools.ShellOutputLimit
	if n < 0 {
		return nil, exitcode.Config, fmt.Errorf("settings: tools.shellOutputLimit is %d: it must be a positive number of characters", n)
	}
	shell.SetOutputLimit(n)
	if cfg.Home != "" {
		shell.SetCacheDir(filepath.Join(cfg.Home, "sandbox-cache"))
	}
	sandboxCleanup, err := setupSandbox(cfg.Sandbox, cfg.AllowUnsandboxed, c.ws, shell, cfg.Getenv, cfg.Stderr)
	if err != nil {
		return nil, exitcode.Input, err
	}
	// Closers run last first: the jobs end before their temporary
	// directory goes.
	c.closers = append(c.closers, sandboxCleanup, func() { stopJobs(shell, cfg.Stderr) })
	return shell, 0, nil
}

// registerTools sets c.reg to the built-in tools: those on files and the
// shell, the task list, web access, and save_memory when ply has a home.
// It returns web_fetch's asker of provider, whose retry policy newChat
// sets.
func (c *Session) registerTools(cfg *Config, getenv func(string) string, notices io.Writer, shell *tools.Shell, provider chat.Provider) *modelAsker {
	asker := &modelAsker{provider: provider, model: cfg.Model}
	c.todos = tools.NewTodoList(nil, func(ts []tools.Todo) {
		if c.sess != nil {
			c.sess.w.AppendTodos(ts)
		}
	})
	ws := c.ws
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
		tools.NewWebFetch(tools.WebFetchOptions{Asker: asker, AllowPrivate: cfg.User.WebFetch.AllowPrivate}),
		// Refused until the entry layer sets who answers (questions.go).
		tools.NewAskUserQuestion(),
	)
	c.tasks = registerTaskTools(reg, shell)
	// web_search, when the user configured a backend.
	if ws, err := webSearchTool(cfg.User.Tools.WebSearch, getenv); err != nil {
		fmt.Fprintf(notices, "ply: warning: settings tools.webSearch: %v; web_search is not offered\n", err)
	} else if ws != nil {
		reg.Register(ws)
	}
	if cfg.Home != "" {
		reg.Register(tools.NewSaveMemory(filepath.Join(cfg.Home, sysprompt.InstructionNames[0])))
	}
	c.reg = reg
	return asker
}

// registerAgents sets c.agents and offers the agent tool with the
// subagents of ply's home and, in a trusted folder, the project's; a
// definition that does not load is skipped with a warning.
func (c *Session) registerAgents(cfg *Config, log *slog.Logger, notices io.Writer) {
	c.agents = &subagents{log: log}
	projectAgents := ""
	if cfg.Trusted {
		projectAgents = ProjectAgentsDir(cfg.Workspace)
	}
	defs, defErrs := agent.Load(filepath.Join(cfg.Home, "agents"), projectAgents)
	for _, e := range defErrs {
		fmt.Fprintf(notices, "ply: warning: %v (skipped)\n", e)
	}
	c.bgEntry = backgroundEntry(cfg)
	c.reg.Register(agent.NewTool(defs, c.agentRunner()))
}

// offerStructuredOutput offers structured_output when the run has an
// output schema, and returns what to append to the system prompt: the
// flags' text and, with a schema, how the run must end.
func (c *Session) offerStructuredOutput(cfg *Config) string {
	appendPrompt := cfg.AppendSystemPrompt
	if cfg.Schema != nil {
		c.reg.Register(tools.NewStructuredOutput(cfg.Schema))
		appendPrompt += "\n\nThis run must end with a call to " + tools.StructuredOutputName +
			" whose arguments are the final answer, matching its schema. Do the work first, then make that call once."
	}
	return appendPrompt
}

// newPolicy sets c.policy from the approval mode and the rules of the
// settings files and flags, loads the skills it allows, and removes from
// c.reg every tool it does not offer or that could not run in this run
// (withheld). It returns the mode watcher that
// offers exit_plan_mode in plan mode; newClient gives it the chat and the
// system prompt.
func (c *Session) newPolicy(cfg *Config, notices io.Writer) (*modeSync, error) {
	mode, err := permission.ParseMode(cfg.Mode)
	if err != nil {
		return nil, err
	}
	var ruleSets []permission.RuleSet
	for _, f := range cfg.SettingsFiles {
		p := f.Settings.Permissions
		ruleSets = append(ruleSets, permission.RuleSet{Source: f.Path, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny})
	}
	c.policyCfg = permission.Config{
		Mode: mode, Workspace: c.ws, Settings: ruleSets,
		AllowedTools: append(slices.Clone(cfg.AllowedTools), trustedServers(cfg.MCP)...), ExcludeTools: cfg.ExcludeTools, CoreTools: cfg.CoreTools,
		ReadOnlyProfile: readOnlyProfile(notices), AllowUnconfined: cfg.AllowUnsandboxed,
		WorkspaceSandbox: workspaceSandbox,
	}
	policy, err := permission.New(c.policyCfg)
	if err != nil {
		// A rule that does not parse could be a deny rule that would
		// then deny nothing: refuse to start.
		return nil, errors.New("bad permission rule: " + strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	c.policy = policy
	if mode == permission.ModeAuto {
		autoNotice(policy, notices)
	}
	reg := c.reg
	c.skills = loadSkills(cfg, c.ws, policy, reg, notices)
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
	offerEscalation(reg, mode)
	offerExit := policy.Offered(tools.ExitPlanModeName)
	for _, n := range reg.Names() {
		if !policy.Offered(n) {
			reg.Remove(n)
		}
	}
	for n, why := range withheld(cfg, policy, reg, c.bgEntry) {
		policy.Withhold(n, why)
		reg.Remove(n)
	}
	withholdQuestions(cfg, policy, reg) // questions.go
	later := untilPlanEnds(policy, reg)
	for _, t := range later {
		policy.Withhold(t.Name(), t.Name()+" is not offered in plan mode, which refuses it; it is offered again once the plan is approved or the mode changes")
		reg.Remove(t.Name())
	}
	return &modeSync{reg: reg, exit: exitPlan, offerExit: offerExit, policy: policy, later: later}, nil
}

// openSession sets c.sess to the new or resumed session, starts its
// background work, gives it its artifacts directory and restores its
// skills and task list. On error it also returns the exit code.
func (c *Session) openSession(cfg *Config, log *slog.Logger, notices io.Writer, shell *tools.Shell) (int, error) {
	if cfg.Prompt != "" {
		cfg.Prompt = expandAtPaths(cfg.Prompt, c.ws)
	}
	sess, code, err := openSession(cfg, c.ws.Root(), log, cfg.Stderr)
	if err != nil {
		return code, err
	}
	c.sess = sess
	c.startSource = sessionSource(sess.history == nil)
	c.startBackground(cfg, c.policy, notices)
	// The transcript closes on any later refusal too, and before the
	// background work stops: closers run last first.
	c.closers = append(c.closers, func() {
		// The interactive UI may have closed it already (closeSession).
		if err := sess.w.Close(); err != nil && !errors.Is(err, session.ErrClosed) {
			fmt.Fprintf(cfg.Stderr, "ply: saving the session: %v\n", err)
		}
	})
	c.tasks.Add(c.backgroundToolTasks) // background subagents and schedules in /tasks and task_stop
	if err := c.keepArtifacts(shell); err != nil {
		return exitcode.Error, err
	}
	reopenSkills(c.skills, sess.history)
	if len(sess.todos) > 0 {
		var ts []tools.Todo
		if err := json.Unmarshal(sess.todos, &ts); err != nil {
			log.Warn("the saved task list does not decode; starting without one", "err", err)
		} else {
			c.todos.Restore(ts)
		}
	}
	return 0, nil
}

// keepArtifacts creates the directory the session keeps beside its
// transcript (spilled outputs) and makes it readable by the read tools,
// for this session only; it is removed with the session.
func (c *Session) keepArtifacts(shell *tools.Shell) error {
	artifacts := c.sess.w.Dir()
	if err := os.MkdirAll(artifacts, 0o700); err != nil {
		return fmt.Errorf("creating the session directory: %w", err)
	}
	if err := c.ws.AddReadOnly(artifacts); err != nil {
		return fmt.Errorf("opening the session directory to the read tools: %w", err)
	}
	shell.SetOutputDir(filepath.Join(artifacts, "shell-output"))
	return nil
}

// systemEnv gathers what the system prompt says: the workspace, the
// offered tools, the instruction files, the mode and the repository
// snapshot, which it waits for. A resumed session shows the date and the
// snapshot its transcript recorded (keepPromptFacts).
func (c *Session) systemEnv(cfg *Config, appendPrompt string, repo func() *sysprompt.Repo, notices io.Writer) sysprompt.Env {
	instructions := sysprompt.LoadInstructions(cfg.Home, cfg.Workspace, notices)
	started := time.Now()
	env := sysprompt.Env{
		Workspace: c.ws.Root(), Tools: c.reg.OfferedNames(), Now: started,
		Override: cfg.SystemPrompt, Append: strings.TrimSpace(appendPrompt),
		Instructions: instructions, Mode: cfg.Mode, Interactive: cfg.Interactive || cfg.StreamInput,
		Sandbox: sandboxSummary(cfg.Sandbox), Repo: repo(), NoAutoSandbox: errText(c.policy.SandboxMissing()),
		Editor: cfg.Editor,
	}
	keepPromptFacts(c.sess, &env, c.log)
	return env
}

// retryPolicy is the chat's retry policy; PLY_RETRY_DELAY_SCALE, for
// tests and impatient users, scales every retry delay.
func retryPolicy(getenv func(string) string) (chat.RetryPolicy, error) {
	retry := chat.DefaultRetryPolicy
	if s := getenv("PLY_RETRY_DELAY_SCALE"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 {
			return retry, fmt.Errorf("PLY_RETRY_DELAY_SCALE=%q is not a non-negative number", s)
		}
		retry = retry.Scale(f)
	}
	return retry, nil
}

// newChat sets c.chat to the session's chat with the provider, writing
// what it appends to the transcript, and returns its configuration, the
// base of the subagents'. asker retries as the chat does.
func (c *Session) newChat(cfg *Config, getenv func(string) string, log *slog.Logger, provider chat.Provider, asker *modelAsker, sysEnv sysprompt.Env) (chat.Config, error) {
	retry, err := retryPolicy(getenv)
	if err != nil {
		return chat.Config{}, err
	}
	asker.retry = retry
	hookRunner, sess := c.hooks, c.sess
	spill := newSpillFile(sess.w.Dir())
	c.closers = append(c.closers, func() { spill.Close() })
	chatCfg := chat.Config{
		Model:  cfg.Model,
		System: sysprompt.Build(sysEnv),
		Tools:  c.reg.Decls(),
		Retry:  retry,
		// Without a configured window, assume one most current models
		// have; compressing at 70% of it keeps long sessions alive.
		ContextWindow:   contextWindow(cfg, cfg.Model),
		MaxOutputTokens: cfg.MaxOutputTokens,
		Effort:          cfg.Effort,
		Repair: func(h []llm.Message) []llm.Message {
			out, rep := repair.Repair(h)
			if rep.Changed() {
				log.Warn("repaired history before sending", "report", rep.String())
			}
			return out
		},
		Logger: log,
		Spill:  spill,
	}
	// hooks (skills area): PreCompact and PostCompact.
	if hookRunner.Has(hooks.PreCompact) || hookRunner.Has(hooks.PostCompact) || hookRunner.Has(hooks.SessionStart) {
		chatCfg.Compact = hookRunner
	}
	// The session's own chat, not its subagents', can name the prompt to
	// rewind to.
	mainCfg := chatCfg
	mainCfg.WayBack = c.wayBack
	ch := chat.New(provider, mainCfg, sess.history)
	ch.OnAppend(sess.w.Append)
	c.chat = ch

	c.closers = append(c.closers, func() {
		// SessionEnd runs even after Ctrl+C, with its own deadline.
		ectx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hookRunner.SessionEnd(ectx, "other")
	})
	return chatCfg, nil
}

// newClient sets c.client, with the loop guards, the checkpoints, the
// mode reminders of modes and the Stop hook, and the scheduler options
// every entry layer starts from.
func (c *Session) newClient(cfg *Config, log *slog.Logger, modes *modeSync, sysEnv sysprompt.Env, notices io.Writer) {
	ws, sess, reg, ch, policy, hookRunner := c.ws, c.sess, c.reg, c.chat, c.policy, c.hooks
	c.loops = newLoopDetector(cfg.Settings.Model)
	c.cp = newCheckpointer(cfg, ws, sess, reg, notices, log)
	c.closers = append(c.closers, c.cp.close) // checkpoints: the change tracker's watches
	modes.chat, modes.env = ch, sysEnv
	c.modes = modes
	if note, facts, w := sess.note, sess.noteFacts, sess.w; note != "" {
		// What changed in the repository since the snapshot the
		// resumed session's prompt shows goes with its first message.
		modes.queue(note, func() { w.AppendPromptFacts(facts) })
	}
	policy.Watch(modes)
	c.client = client.New(ch, client.Options{
		Reminders:   modes,
		Loop:        guard{c.loops},
		NextSpeaker: true,
		Stop:        hookRunner.Stop,
		// The system prompt gives the date at start; a later query on
		// another day is told the new one.
		Clock: time.Now, DateShown: sysEnv.Now,
		OnUserQuery: c.onUserQuery,
	})
	c.schedOps = []scheduler.Option{
		scheduler.WithPolicy(policy),
		scheduler.MaxConcurrencyFromEnv(),
		scheduler.WithHooks(hooks.ForScheduler(hookRunner)),
		scheduler.WithSpillDir(filepath.Join(sess.w.Dir(), "tool-output")),
	}
}

// configureSubagents gives the subagents what they run with: the
// provider, the chat configuration chatCfg, the tools, the scheduler
// options, the hooks and their own system prompt.
func (c *Session) configureSubagents(cfg *Config, provider chat.Provider, chatCfg chat.Config, sysEnv sysprompt.Env) {
	sess, ws, reg, policy := c.sess, c.ws, c.reg, c.policy
	a := c.agents
	a.provider, a.model, a.base, a.reg, a.schedOps, a.sessionID = provider, cfg.Model, chatCfg, reg, c.schedOps, sess.id
	a.env = sysprompt.Env{Workspace: ws.Root(), Instructions: sysEnv.Instructions, Subagent: true,
		Mode: cfg.Mode, Interactive: cfg.Interactive || cfg.StreamInput, Sandbox: sandboxSummary(cfg.Sandbox),
		NoAutoSandbox: errText(workspaceSandbox())}
	a.loops = cfg.Settings.Model
	a.mode = policy
	a.cfg, a.policy, a.policyCfg = cfg, policy, c.policyCfg
	a.hooks = c.hooks
}

// newHooks builds the hook runner from the merged settings; nil (no
// hooks) when none are configured.
func newHooks(cfg *Config, root string, sess *opened, policy *permission.Policy, stderr io.Writer) (*hooks.Runner, error) {
	if len(cfg.Settings.Hooks) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(map[string]any{"hooks": cfg.Settings.Hooks})
	if err != nil {
		return nil, fmt.Errorf("settings hooks: %w", err)
	}
	hc, err := hooks.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("settings hooks: %w", err)
	}
	for _, w := range hc.Unfired() {
		fmt.Fprintf(stderr, "ply: warning: settings: %s\n", w)
	}
	return hooks.NewRunner(hc, hooks.Options{
		Dir: root, SessionID: sess.id, TranscriptPath: sess.w.Path(), Mode: currentMode{policy}, Env: cfg.ChildEnv,
		OnWarning: func(w hooks.Warning) { fmt.Fprintf(stderr, "ply: warning: %v\n", w) },
		OnMessage: func(event, text string) { fmt.Fprintf(stderr, "ply: %s hook: %s\n", event, text) },
	})
}

// sessionSource names how the session began, for SessionStart.
func sessionSource(fresh bool) string {
	if fresh {
		return "startup"
	}
	return "resume"
}
