package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tools"
)

// Subagent caps, unless a definition sets max_turns. The parent's caps
// (wall time, Ctrl+C) bound them too, through the context.
const (
	subagentMaxTurns     = 50
	subagentMaxToolCalls = 200
)

// subagentOnly are the parent's tools a subagent never gets: the
// structured-output tool ends the parent's run, exit_plan_mode changes
// the parent's mode, the task list is the session's, a question is the parent's to
// ask, and send_message is
// the parent's (a background subagent gets its own, to the parent).
var subagentOnly = []string{agent.Name, agent.SendMessageName, tools.StructuredOutputName, tools.ExitPlanModeName, tools.TodoWriteName, tools.AskUserQuestionName}

// subagents runs the agent tool's nested loops: each task gets a chat of
// its own over the parent's provider, the parent's tools (or the
// definition's subset) on a scheduler of its own under the parent's
// policy, hooks and approver, and the entry's nested loop (NestedLoop) with its own caps.
//
// UNFINISHED: a subagent's own history lives only in its chat; the
// session's transcript has the agent call and its report, not the steps.
type subagents struct {
	provider chat.Provider
	model    string
	base     chat.Config // retry, window, output cap, repair, logger
	env      sysprompt.Env
	// mode is the session's approval mode now, which a subagent's
	// system prompt states: it may have changed since the session began.
	mode     interface{ Mode() permission.Mode }
	reg      *tools.Registry
	schedOps []scheduler.Option
	log      *slog.Logger
	// loops configures each subagent's loop guards as the main loop's.
	loops settings.Model
	// hooks fires SubagentStart and SubagentStop, and puts
	// PermissionRequest and Notification in front of the approver.
	hooks *hooks.Runner

	// bg runs the background tasks (background.go); nil before the
	// session opens.
	bg *background

	sessionID string

	// cfg, policy and policyCfg build a worktree subagent's own tools and
	// policy (isolation.go).
	cfg       *Config
	policy    *permission.Policy
	policyCfg permission.Config

	// Set by the entry layer before the first run.
	approver scheduler.Approver
	nested   NestedLoop
}

// NestedLoop runs a subagent's loop, the entry layer's loop for n.Prompt
// with its output nested in the parent call's, and returns how it ended.
type NestedLoop func(ctx context.Context, n Nested) NestedResult

// Nested is one subagent's run for a NestedLoop.
type Nested struct {
	SessionID, Model       string
	MaxTurns, MaxToolCalls int
	// Out, when set, takes the progress lines where there is no parent
	// printer (the TUI's agent card).
	Out io.Writer
	// Inbox holds a background subagent's messages from the parent; nil
	// for one the parent waits for.
	Inbox        *inbox.Inbox
	Rounds       *client.Client
	Tools        *Runner
	Prompt       []llm.Part
	ParentCallID string
}

// NestedResult is how a subagent's loop ended: its final text, its
// subtype and, when IsError, its error.
type NestedResult struct {
	Result, Subtype, Error string
	IsError                bool
	Turns                  int
}

const subagentPreamble = "You are a subagent: the main agent handed you one task. You cannot ask it or the user anything; " +
	"work on your own with the tools you have. When done, reply with a final report that stands on its own: what you found " +
	"or changed, with file paths and line numbers where they matter. That report is all the main agent will see."

func (s *subagents) Run(ctx context.Context, t agent.Task) agent.Report {
	return s.run(ctx, t, nil)
}

// run runs t; bg is set for a background task: its loop reads the
// parent's messages from its inbox and gets a send_message to the parent.
func (s *subagents) run(ctx context.Context, t agent.Task, bg *taskLink) agent.Report {
	var available []string
	for _, n := range s.reg.Names() {
		if !slices.Contains(subagentOnly, n) {
			available = append(available, n)
		}
	}
	names, unknown := agent.Resolve(t.Def, available)
	if len(unknown) > 0 && t.Def.Path != "" {
		s.log.Warn("subagent names tools ply does not offer", "subagent", t.Def.Name, "tools", unknown)
	}
	src, env := s.reg, s.env
	var iso *isolated
	if t.Def.Isolation == agent.IsolationWorktree {
		var err error
		if iso, err = s.isolate(ctx, t.Def); err != nil {
			return agent.Report{Err: err.Error(), Subtype: "error_during_execution"}
		}
		defer iso.close()
		src, env.Workspace = iso.registry(s.reg), iso.wt.Path
	}
	reg := tools.NewRegistry()
	var ch *chat.Chat
	copyTools(reg, src, names, func([]string) { ch.SetTools(reg.Decls()) })
	if bg != nil {
		reg.Register(agent.NewSendMessage(bg, "parent"))
	}
	if s.mode != nil {
		env.Mode = s.mode.Mode().String()
	}
	env.Tools = reg.OfferedNames()
	env.Append = strings.TrimSpace(subagentPreamble + "\n\n" + t.Def.Prompt)
	cfg := s.base
	cfg.Model = cmp.Or(t.Def.Model, s.model)
	cfg.System = sysprompt.Build(env)
	cfg.Tools = reg.Decls()
	ch = chat.New(s.provider, cfg, nil)
	cl := client.New(ch, client.Options{Loop: guard{newLoopDetector(s.loops)}, NextSpeaker: true,
		Stop: s.hooks.SubagentStopper(t.CallID, t.Def.Name)})
	opts := slices.Clone(s.schedOps)
	if s.approver != nil {
		opts = append(opts, scheduler.WithApprover(hooks.Approver(s.hooks, s.approver)))
	}
	if iso != nil {
		opts = append(opts, scheduler.WithPolicy(iso.policy))
	}
	first := []llm.Part{{Text: t.Prompt}}
	if extra := s.hooks.SubagentStart(ctx, t.CallID, t.Def.Name); extra != "" {
		first = append(first, llm.Part{Text: extra})
	}
	sched := scheduler.New(reg, opts...)
	n := Nested{
		SessionID: s.sessionID, Model: cfg.Model,
		MaxTurns: cmp.Or(t.Def.MaxTurns, subagentMaxTurns), MaxToolCalls: subagentMaxToolCalls,
		Out: t.Out, Rounds: cl, Tools: &Runner{sched: sched, chat: ch}, Prompt: first, ParentCallID: t.CallID,
	}
	if bg != nil {
		n.Inbox = bg.task.inbox
	}
	if s.nested == nil {
		return agent.Report{Err: "this session runs no subagents", Subtype: "error_during_execution"}
	}
	res := s.nested(ctx, n)
	rep := agent.Report{Text: res.Result, Subtype: res.Subtype, Turns: res.Turns, ToolCalls: countCalls(ch.History())}
	if iso != nil {
		rep.Worktree = iso.report(ctx)
	}
	if res.IsError {
		rep.Err = res.Error
		rep.Text = lastModelText(ch.History())
	}
	return rep
}

func countCalls(h []llm.Message) int {
	n := 0
	for _, m := range h {
		for _, p := range m.Parts {
			if p.Call != nil {
				n++
			}
		}
	}
	return n
}

func lastModelText(h []llm.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role != llm.RoleModel {
			continue
		}
		var b strings.Builder
		for _, p := range h[i].Parts {
			if p.Call == nil && !p.Thought {
				b.WriteString(p.Text)
			}
		}
		if s := strings.TrimSpace(b.String()); s != "" {
			return s
		}
	}
	return ""
}

// AddAgents adds subagent definitions (the SDK's) to the agent tool (one
// of the same name replaces it) and returns the names of all.
func (c *Session) AddAgents(list []agent.Definition) ([]string, error) {
	t, ok := c.reg.Lookup(agent.Name)
	if !ok {
		return nil, errors.New("subagents are not available in this session")
	}
	defs := slices.Clone(t.(*agent.Tool).Definitions())
	for _, d := range list {
		if strings.TrimSpace(d.Name) == "" || strings.TrimSpace(d.Description) == "" {
			return nil, fmt.Errorf("a subagent needs a name and a description (got %q)", d.Name)
		}
		defs = slices.DeleteFunc(defs, func(o agent.Definition) bool { return o.Name == d.Name })
		defs = append(defs, d)
	}
	c.reg.Register(agent.NewTool(defs, c.agentRunner()))
	c.chat.SetTools(c.reg.Decls())
	return c.agentNames(), nil
}

// ProjectAgentsDir is where a project keeps its subagent definitions.
func ProjectAgentsDir(workspace string) string {
	return filepath.Join(workspace, ".ply", "agents")
}
