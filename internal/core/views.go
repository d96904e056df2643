package core

import (
	"context"
	"errors"
	"strings"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tools"
)

// What a session reports about itself, for the entry layers' commands
// (/tools, /memory, /mcp, /agents, /model, /context, /resume, /tasks).
// Each answers from the session's state now.

// Messages is the conversation as the model has it now.
func (c *Session) Messages() []llm.Message { return c.chat.History() }

// Sessions lists the workspace's saved sessions, newest first, this one
// marked Current.
func (c *Session) Sessions() ([]info.Session, error) {
	list, err := session.List(c.cfg.Home, c.ws.Root())
	if err != nil {
		return nil, err
	}
	out := make([]info.Session, len(list))
	for i, s := range list {
		out[i] = info.Session{ID: s.ID, Title: s.Title, Modified: s.Modified, Turns: s.Turns, FirstPrompt: s.FirstPrompt, Current: s.ID == c.ID()}
	}
	return out, nil
}

// Rename names the session (/rename): ply -r NAME and /resume find it by
// that name.
func (c *Session) Rename(title string) error {
	if err := session.CheckTitle(title); err != nil {
		return err
	}
	c.sess.w.AppendTitle(title)
	return c.sess.w.Sync()
}

// Tools lists the tools the model is offered.
func (c *Session) Tools() []info.Tool {
	var out []info.Tool
	for _, t := range c.reg.All() {
		out = append(out, info.Tool{Name: t.Name(), Description: t.Description()})
	}
	return out
}

// Memory lists the instruction files as they are on disk now, as the
// next session would load them. UNFINISHED: the system prompt keeps what
// was read at start.
func (c *Session) Memory() []info.Memory {
	var out []info.Memory
	for _, in := range sysprompt.LoadInstructions(c.cfg.Home, c.cfg.Workspace, nil) {
		out = append(out, info.Memory{Path: in.Path, Bytes: len(in.Content)})
	}
	return out
}

// BackgroundTasks lists every kind of the session's background work.
func (c *Session) BackgroundTasks() []tools.Task { return c.tasks.Tasks() }

// SkillList lists the session's skills; InvokeSkill activates one for
// the user's /name args and returns the prompt to send.
func (c *Session) SkillList() []info.Skill {
	var out []info.Skill
	for _, s := range c.skills.Skills() {
		out = append(out, info.Skill{Name: s.Name, Description: s.Description, Path: s.Path, Source: s.Source})
	}
	return out
}

func (c *Session) InvokeSkill(name, args string) (string, error) { return c.skills.Invoke(name, args) }

// MCPPrompts lists the MCP servers' prompts offered as slash commands,
// waiting under ctx for servers still starting; GetMCPPrompt renders one
// with the arguments typed after it. Without servers there are none.
func (c *Session) MCPPrompts(ctx context.Context) []info.MCPPrompt {
	if c.mcpm == nil {
		return nil
	}
	var out []info.MCPPrompt
	for _, p := range c.mcpm.Prompts(ctx) {
		ip := info.MCPPrompt{Command: p.Command, Description: p.Description}
		for _, a := range p.Args {
			ip.Args = append(ip.Args, a.Name)
		}
		out = append(out, ip)
	}
	return out
}

// errNoMCP: a session without MCP servers has no prompt to render.
var errNoMCP = errors.New("no MCP server is configured")

func (c *Session) GetMCPPrompt(ctx context.Context, command, args string) (string, error) {
	if c.mcpm == nil {
		return "", errNoMCP
	}
	return c.mcpm.GetPrompt(ctx, command, args)
}

// MCPStatus lists the MCP servers, their states and their tools.
func (c *Session) MCPStatus() []info.MCPServer {
	var out []info.MCPServer
	names := c.reg.Names()
	for _, s := range c.mcpStates() {
		srv := info.MCPServer{Name: s.Name, Status: s.Status}
		prefix := "mcp__" + s.Name + "__"
		for _, n := range names {
			if rest, ok := strings.CutPrefix(n, prefix); ok {
				srv.Tools = append(srv.Tools, rest)
			}
		}
		out = append(out, srv)
	}
	return out
}

// Agents lists the subagent definitions the agent tool offers.
func (c *Session) Agents() []info.Agent {
	tl, ok := c.reg.Lookup(agent.Name)
	if !ok {
		return nil
	}
	var out []info.Agent
	for _, d := range tl.(*agent.Tool).Definitions() {
		src := "built in"
		if d.Path != "" {
			src = d.Path
		}
		out = append(out, info.Agent{Name: d.Name, Description: d.Description, Source: src})
	}
	return out
}

// Models lists the model in use, then the other models its provider
// serves (Config.Models), for /model, ACP and the SDK. UNFINISHED:
// another provider's models are not listed, as switching to one within a
// session is not done.
func (c *Session) Models() []info.Model {
	cur := c.Model()
	out := []info.Model{{ID: cur, Label: cur, ContextWindow: c.ContextWindow(cur), Current: true}}
	for _, m := range c.cfg.Models {
		if m.ID != cur {
			m.Current = false
			out = append(out, m)
		}
	}
	return out
}

// ContextUse breaks the next request down by token estimates.
func (c *Session) ContextUse() info.Context {
	e, cc := c.chat.Estimate(), c.chat.Config()
	return info.Context{
		Model: cc.Model, Window: cc.ContextWindow,
		System: e.System, Tools: e.Tools, History: e.History,
		Total: e.System + e.Tools + e.History, Reported: e.LastPrompt,
	}
}

// ContextUsed estimates the tokens of the next request and the model's
// window, for a footer's percentage; ModelInfo gives the current model's
// window and prices (known false when its window is assumed).
func (c *Session) ContextUsed() (used, window int) {
	return ContextUsed(c.chat.Estimate()), c.ContextWindow(c.Model())
}

func (c *Session) ModelInfo() (modelinfo.Info, bool) { return c.ModelFacts(c.Model()) }
