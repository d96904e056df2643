package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"

	"github.com/plyhq/ply/internal/acp"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tools"
)

// runACP serves the Agent Client Protocol on stdin and stdout: each
// session the client opens gets its own core, built for its directory as
// a run started there would be. stdout carries protocol messages only.
func runACP(ctx context.Context, cfg *config, sio IO, log *slog.Logger) int {
	if o := cfg.opts; cfg.prompt != "" || o.Continue || o.Resume != "" || o.SessionID != "" || o.ForkSession {
		return fail(sio, exitcode.Input, "--acp takes its prompts and sessions from the client: give no prompt, --continue, --resume, --session-id or --fork-session")
	}
	if cfg.opts.InputFormat != "" || cfg.opts.OutputFormat != "" {
		return fail(sio, exitcode.Input, "--acp has its own protocol: --input-format and --output-format do not apply")
	}
	log.Info("acp server", "model", cfg.model, "mode", cfg.mode)
	err := acp.Serve(ctx, acp.Config{
		NewSession: func(ctx context.Context, o acp.Open, h acp.Hooks) (*acp.Session, error) {
			return acpSession(ctx, cfg, sio, log, o, "", h)
		},
		LoadSession: func(ctx context.Context, o acp.Open, id string, h acp.Hooks) (*acp.Session, error) {
			return acpSession(ctx, cfg, sio, log, o, id, h)
		},
		ListSessions: func(cwd string) ([]acp.SessionSummary, error) {
			return acpSessions(cfg, cmp.Or(cwd, cfg.workspace))
		},
		Version: Version,
		Log:     log,
	}, sio.Stdin, sio.Stdout)
	if err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	return 0
}

// acpSession builds a core for a session in cwd, new or (resume not
// empty) the saved one resume names: the settings and trust of that
// folder, ply's flags and environment, and h plugged into the scheduler.
func acpSession(ctx context.Context, base *config, sio IO, log *slog.Logger, o acp.Open, resume string, h acp.Hooks) (*acp.Session, error) {
	cfg, err := acpConfig(base, sio, o, resume)
	if err != nil {
		return nil, err
	}
	cc := cfg.coreConfig(sio)
	cc.Editor = sysprompt.EditorACP
	c, _, err := core.New(ctx, cc, sio.Stderr, log)
	if err != nil {
		return nil, err
	}
	return acpServe(cfg, sio, log, c, h), nil
}

// acpConfig is base for a session in o's folder: that folder's trust and
// settings, with the client's MCP servers, resuming resume when set.
func acpConfig(base *config, sio IO, o acp.Open, resume string) (*config, error) {
	cwd := o.CWD
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	cfg := *base
	opts := *base.opts
	cfg.opts = &opts
	cfg.workspace = filepath.Clean(cwd)
	// A person is at the other end: the system prompt says so.
	cfg.interactive = true
	opts.Resume, cfg.promptLater = resume, true
	if cfg.workspace != base.workspace {
		cfg.trust = checkTrust(cfg.home, cfg.workspace, opts.TrustWorkspace, sio.Stderr)
		if cfg.trust.ignored != "" {
			fmt.Fprintln(sio.Stderr, untrustedNotice(cfg.trust.ignored))
		}
		if _, err := loadSettings(&cfg, &opts, sio.Getenv); err != nil {
			return nil, err
		}
	}
	if len(o.MCP) > 0 {
		// The client's servers join the configured ones; a name in both
		// is the client's.
		servers := maps.Clone(cfg.mcp)
		if servers == nil {
			servers = map[string]mcp.ServerConfig{}
		}
		for _, m := range o.MCP {
			servers[m.Name] = mcp.ServerConfig{Name: m.Name, ID: mcp.ServerID(m.Name), Transport: mcp.Transport(m.Transport),
				Command: m.Command, Args: m.Args, Env: m.Env, URL: m.URL, Headers: m.Headers}
		}
		cfg.mcp = servers
	}
	return &cfg, nil
}

// acpServe plugs the client's hooks h into the session c and describes it
// to the ACP server.
func acpServe(cfg *config, sio IO, log *slog.Logger, c *core.Session, h acp.Hooks) *acp.Session {
	// The client's file system, when it offers one, is where the file
	// tools' text comes from and goes to.
	c.Workspace().SetTextFiles(h.Files)
	// Its terminals, when it offers them, run the shell commands ply
	// would run unconfined.
	if t, ok := c.Registry().Lookup("run_shell_command"); ok {
		if sh, ok := t.(*tools.Shell); ok {
			sh.SetTerminals(h.Terminals)
		}
	}
	sched := scheduler.New(c.Registry(), append(c.SchedulerOptions(),
		scheduler.WithApprover(c.Approver(h.Approver)),
		scheduler.WithLiveOutput(h.LiveOutput),
		scheduler.WithOnUpdate(func(call *scheduler.Call) {
			c.RecordToolState(call)
			h.OnUpdate(call)
		}),
	)...)
	// Subagents ask the client too; their progress never goes to stdout.
	c.SetSubagentApprover(h.Approver)
	c.SetQuestionAsker(h.Questions)
	c.SetSubagentLoop(nestedLoop(headless.FormatText, io.Discard, sio.Stderr))
	ch := c.Chat()
	first, _ := c.First()
	log.Info("acp session", "session", c.ID(), "workspace", cfg.workspace, "mode", cfg.mode)
	models := acpModels(c)
	return &acp.Session{
		ID:       c.ID(),
		Rounds:   c.Client(),
		Tools:    c.Runner(sched, false),
		Mode:     cfg.mode,
		Controls: c,
		Recorder: c.Recorder(),
		TurnCap:  c.Loops(),
		Close:    c.Close,
		History:  c.History(),
		First:    first,
		Models:   models,
		Model:    ch.Config().Model,
		Effort:   c.Effort(),
		Commands: acpCommands(c),
		// The session's background work (acp/inbox.go).
		Inbox: c.Inbox(),
	}
}

// acpSessions lists the saved sessions of the project in cwd.
func acpSessions(cfg *config, cwd string) ([]acp.SessionSummary, error) {
	ws, err := tools.NewWorkspace(cwd)
	if err != nil {
		return nil, err
	}
	list, err := session.List(cfg.home, ws.Root())
	if err != nil {
		return nil, err
	}
	out := make([]acp.SessionSummary, 0, len(list))
	for _, s := range list {
		out = append(out, acp.SessionSummary{ID: s.ID, CWD: ws.Root(), Title: cmp.Or(s.Title, s.FirstPrompt), Updated: s.Modified})
	}
	return out, nil
}
