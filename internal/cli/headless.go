package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/sdk"
	"github.com/plyhq/ply/internal/tools"
)

// runHeadless builds the layers for cfg and runs the headless loop.
func runHeadless(ctx context.Context, cfg *config, sio IO, log *slog.Logger) int {
	c, code, err := core.New(ctx, cfg.coreConfig(sio), sio.Stderr, log)
	if err != nil {
		return fail(sio, code, err.Error())
	}
	defer c.Close()
	opts := append(c.SchedulerOptions(),
		scheduler.WithOnUpdate(c.RecordToolState),
	)
	hcfg := headless.Config{
		Format: cfg.format, SessionID: c.ID(), Model: cfg.model, CWD: c.Workspace().Root(),
		Tools: c.Registry().Names(), Agents: c.AgentNames(), MCPServers: mcpStates(c.MCPServers()), PermissionMode: cfg.mode, Version: Version,
		Skills:          c.SkillNames(),
		MaxSessionTurns: cfg.opts.MaxSessionTurns, MaxToolCalls: cfg.opts.MaxToolCalls,
		MaxWallTime: cfg.opts.MaxWallTime, Stdout: sio.Stdout, Stderr: sio.Stderr,
		StructuredOutput: structuredName(cfg),
		PartialMessages:  cfg.opts.PartialMessages,
		Recorder:         c.Recorder(),
		// Every entry drains the session's inbox of background work.
		Inbox: c.Inbox(),
	}
	c.SetSubagentLoop(nestedLoop(cfg.format, sio.Stdout, sio.Stderr))
	log.Info("headless run", "session", c.ID(), "model", cfg.model, "mode", cfg.mode, "stream_input", cfg.streamInput)
	first, firstType := c.First()
	if cfg.streamInput {
		s := sdk.New(hcfg)
		s.Resume(first, firstType)
		c.SetSubagentApprover(s)
		sched := scheduler.New(c.Registry(), append(opts, scheduler.WithApprover(c.Approver(s)))...)
		code := s.Serve(ctx, c.Client(), c.Runner(sched, true), sio.Stdin, sdkControls(ctx, cfg, c, sio, log))
		return unsavedCode(c, code)
	}
	// No one answers questions here: a skill the model loads is read
	// without granting its allowed-tools.
	c.Policy().SetUnattended(true)
	sched := scheduler.New(c.Registry(), opts...)
	return unsavedCode(c, headless.RunFrom(ctx, hcfg, c.Client(), c.Runner(sched, true), first, firstType))
}

// unsavedCode is code, or exitcode.Unsaved when a run that otherwise
// succeeded left part of its session unsaved: a script must not take a
// session it cannot resume whole for a success. (Each query or
// interaction that met the failure already ended as an error.)
func unsavedCode(c *core.Session, code int) int {
	if code == exitcode.OK && c.Transcript().Err() != nil {
		return exitcode.Unsaved
	}
	return code
}

// sdkControls are the SDK's control requests on the session c.
func sdkControls(ctx context.Context, cfg *config, c *core.Session, sio IO, log *slog.Logger) sdk.Controls {
	return sdk.Controls{
		Session:   c,
		AddAgents: func(list []sdk.Agent) ([]string, error) { return c.AddAgents(sdkAgents(list)) },
		AddMCPServers: func(raw map[string]json.RawMessage, embedded []string, send sdk.MCPSender) ([]headless.MCPServer, []string, error) {
			states, names, err := c.AddMCPServers(ctx, raw, embedded, send, log, sio.Stderr)
			return mcpStates(states), names, err
		},
	}
}

// nestedLoop runs subagents in the headless loop, their output nested in
// the parent's printer when there is one, else in format on stdout and
// stderr.
func nestedLoop(format string, stdout, stderr io.Writer) core.NestedLoop {
	return func(ctx context.Context, n core.Nested) core.NestedResult {
		format, stderr := format, stderr
		if n.Out != nil {
			// Without a parent printer (the TUI), progress lines go to the
			// agent card's live output.
			format, stderr = headless.FormatText, n.Out
		}
		hcfg := headless.Config{
			Format: format, SessionID: n.SessionID, Model: n.Model,
			MaxSessionTurns: n.MaxTurns, MaxToolCalls: n.MaxToolCalls,
			Stdout: stdout, Stderr: stderr, Inbox: n.Inbox,
		}
		res := headless.Nested(ctx, hcfg, n.Rounds, n.Tools, n.Prompt, n.ParentCallID)
		return core.NestedResult{Result: res.Result, Subtype: res.Subtype, Error: res.Error, IsError: res.IsError, Turns: res.NumTurns}
	}
}

// sdkAgents are the SDK's subagents as definitions.
func sdkAgents(list []sdk.Agent) []agent.Definition {
	defs := make([]agent.Definition, 0, len(list))
	for _, a := range list {
		defs = append(defs, agent.Definition{Name: a.Name, Description: a.Description, Tools: a.Tools, Model: a.Model,
			MaxTurns: a.RunConfig.MaxTurns, Prompt: a.SystemPrompt})
	}
	return defs
}

// mcpStates are the MCP servers' states as the init message gives them.
func mcpStates(list []core.MCPServer) []headless.MCPServer {
	var out []headless.MCPServer
	for _, s := range list {
		out = append(out, headless.MCPServer{Name: s.Name, Status: s.Status})
	}
	return out
}

func structuredName(cfg *config) string {
	if cfg.schema == nil {
		return ""
	}
	return tools.StructuredOutputName
}
