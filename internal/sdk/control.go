package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/llm"
)

// Controls are what the SDK may change or ask about during a session;
// a nil field answers its request with an error.
type Controls struct {
	// Session is probed for the controls every entry layer shares (the
	// approval mode, the model, the effort, the context's use, the model
	// list: modeSwitcher, modelSwitcher, effortSetter, contextMeter,
	// modelLister), as net/http probes a ResponseWriter for Flusher; a
	// control it lacks answers its request with an error.
	Session any
	// AddMCPServers starts the servers of initialize's "mcpServers"
	// (raw, as in the settings) and registers their tools; it returns
	// the servers' states and the session's tools after.
	// embedded names servers that live in the SDK's process; their
	// messages go through send (mcp_message).
	// AddAgents defines the subagents of initialize's "agents" and
	// returns the names of all the session's subagents.
	AddAgents     func(agents []Agent) ([]string, error)
	AddMCPServers func(raw map[string]json.RawMessage, embedded []string, send MCPSender) ([]headless.MCPServer, []string, error)
}

// The session's controls the SDK's requests reach.
type (
	modeSwitcher  interface{ SetMode(name string) error }
	modelSwitcher interface{ SetModel(name string) error }
	effortSetter  interface{ SetEffort(name string) error }
	// contextMeter estimates the next request's tokens, by part.
	contextMeter interface{ ContextUse() info.Context }
	// modelLister lists the models the session could switch to.
	modelLister interface{ Models() []info.Model }
	// fileRewinder keeps a checkpoint per SDK user message: MarkUserMessage
	// says the next query is message uuid's; RewindFiles puts the files
	// back as they were before it (only lists them with dryRun).
	fileRewinder interface {
		MarkUserMessage(uuid string)
		RewindFiles(ctx context.Context, uuid string, dryRun bool) (changed []string, err error)
	}
)

func (ctl Controls) modes() modeSwitcher    { m, _ := ctl.Session.(modeSwitcher); return m }
func (ctl Controls) models() modelSwitcher  { m, _ := ctl.Session.(modelSwitcher); return m }
func (ctl Controls) efforts() effortSetter  { e, _ := ctl.Session.(effortSetter); return e }
func (ctl Controls) meter() contextMeter    { m, _ := ctl.Session.(contextMeter); return m }
func (ctl Controls) lister() modelLister    { l, _ := ctl.Session.(modelLister); return l }
func (ctl Controls) rewinder() fileRewinder { r, _ := ctl.Session.(fileRewinder); return r }

// Model is one model the session could switch to (set_model).
type Model struct {
	ID            string `json:"id"`
	Label         string `json:"label"`
	Provider      string `json:"provider,omitempty"`
	ContextWindow int    `json:"contextWindowSize,omitempty"`
	Current       bool   `json:"current"`
}

type controlRequest struct {
	Subtype string `json:"subtype"`
	Mode    string `json:"mode"`
	Model   string `json:"model"`
	Effort  string `json:"effort"`
	Range   string `json:"range"`
	// UserMessageID and DryRun are rewind_files' (the Claude Agent SDK's
	// rewindFiles).
	UserMessageID string `json:"user_message_id"`
	DryRun        bool   `json:"dry_run"`
	// MCPServers are external servers for ply to start (initialize).
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	Agents     []Agent                    `json:"agents"`
	// SDKMCPServers are servers in the SDK's own process (initialize).
	SDKMCPServers map[string]struct {
		Name string `json:"name"`
	} `json:"sdkMcpServers"`
}

// Agent is a subagent the SDK defines (its agents option).
type Agent struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	SystemPrompt string   `json:"systemPrompt"`
	Tools        []string `json:"tools"`
	Model        string   `json:"model"`
	RunConfig    struct {
		MaxTurns int `json:"max_turns"`
	} `json:"runConfig"`
}

// MCPSender carries one JSON-RPC message to the SDK-embedded server
// named and returns its answer.
type MCPSender func(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error)

func (s *Session) handleControl(m inMessage, ctl Controls) {
	var req controlRequest
	if err := json.Unmarshal(m.Request, &req); err != nil {
		s.respond(m.RequestID, nil, "malformed control request: "+err.Error())
		return
	}
	if req.Subtype == "initialize" {
		// Starting MCP servers takes round trips through this loop
		// (mcp_message): run it aside; queries wait for it.
		s.initializing.Add(1)
		go func() {
			defer s.initializing.Done()
			resp, err := s.answer(req, ctl)
			if err != nil {
				s.respond(m.RequestID, nil, err.Error())
				return
			}
			s.respond(m.RequestID, resp, "")
		}()
		return
	}
	resp, err := s.answer(req, ctl)
	if err != nil {
		s.respond(m.RequestID, nil, err.Error())
		return
	}
	s.respond(m.RequestID, resp, "")
}

// answer carries out one control request and returns its response body.
func (s *Session) answer(req controlRequest, ctl Controls) (map[string]any, error) {
	switch req.Subtype {
	case "initialize":
		resp := map[string]any{"subtype": "initialize", "session_id": s.cfg.SessionID, "commands": []string{},
			"output_style": "default", "ply_version": s.cfg.Version, "capabilities": capabilities(ctl)}
		var embedded []string
		for key, v := range req.SDKMCPServers {
			embedded = append(embedded, cmp.Or(strings.TrimSpace(v.Name), key))
		}
		if len(req.MCPServers) > 0 || len(embedded) > 0 {
			if err := s.addMCPServers(req.MCPServers, embedded, ctl); err != nil {
				return nil, err
			}
		}
		if len(req.Agents) > 0 {
			if ctl.AddAgents == nil {
				return nil, fmt.Errorf("subagents in initialize are not supported")
			}
			names, err := ctl.AddAgents(req.Agents)
			if err != nil {
				return nil, fmt.Errorf("defining the subagents of initialize: %w", err)
			}
			s.mu.Lock()
			s.cfg.Agents = names
			s.mu.Unlock()
		}
		if req.Effort != "" {
			st, err := s.setEffort(req.Effort, ctl)
			if err != nil {
				return nil, err
			}
			resp["effort_status"] = st
		}
		return resp, nil
	case "interrupt":
		s.mu.Lock()
		cancel := s.cancel
		s.mu.Unlock()
		if cancel != nil {
			cancel(nil)
		}
		return map[string]any{"subtype": "interrupt"}, nil
	case "set_permission_mode":
		m := ctl.modes()
		if m == nil {
			return nil, fmt.Errorf("changing the permission mode is not supported")
		}
		if err := m.SetMode(req.Mode); err != nil {
			return nil, err
		}
		return map[string]any{"subtype": "set_permission_mode", "mode": req.Mode}, nil
	case "set_model":
		m := ctl.models()
		if m == nil {
			return nil, fmt.Errorf("changing the model is not supported")
		}
		if err := m.SetModel(req.Model); err != nil {
			return nil, err
		}
		return map[string]any{"subtype": "set_model", "model": req.Model}, nil
	case "set_effort":
		return s.setEffort(req.Effort, ctl)
	case "supported_commands":
		// ply's slash commands belong to its terminal UI; a headless
		// session runs none.
		return map[string]any{"subtype": "supported_commands", "commands": []string{}}, nil
	case "mcp_server_status":
		s.mu.Lock()
		servers := nonNil(s.cfg.MCPServers)
		s.mu.Unlock()
		return map[string]any{"subtype": "mcp_server_status", "mcpServers": servers}, nil
	case "get_context_usage":
		if ctl.meter() == nil {
			return nil, fmt.Errorf("context usage is not available")
		}
		return contextUsageBody(ctl.meter().ContextUse()), nil
	case "get_available_models":
		if ctl.lister() == nil {
			return nil, fmt.Errorf("the model list is not available")
		}
		return map[string]any{"subtype": "get_available_models", "models": nonNil(modelsOf(ctl.lister().Models()))}, nil
	case "get_usage_info":
		return s.usageInfo(req.Range), nil
	case "rewind_files":
		if ctl.rewinder() == nil {
			return nil, fmt.Errorf("rewind_files: this session keeps no checkpoints")
		}
		changed, err := ctl.rewinder().RewindFiles(context.Background(), req.UserMessageID, req.DryRun)
		if err != nil {
			return nil, fmt.Errorf("rewind_files: %w", err)
		}
		if changed == nil {
			changed = []string{}
		}
		return map[string]any{"subtype": "rewind_files", "canRewind": true, "filesChanged": changed, "dryRun": req.DryRun}, nil
	case "continue_last_turn":
		return s.continueLastTurn(), nil
	}
	return nil, fmt.Errorf("unsupported control request %q", req.Subtype)
}

// capabilities tells the SDK which control requests get real answers.
func capabilities(ctl Controls) map[string]any {
	return map[string]any{
		"can_handle_can_use_tool": true, "can_handle_hook_callback": false,
		"can_set_permission_mode": ctl.modes() != nil, "can_set_model": ctl.models() != nil,
		"can_set_effort": ctl.efforts() != nil, "can_get_context_usage": ctl.meter() != nil,
		"can_get_available_models": ctl.lister() != nil, "can_get_usage_info": true,
		"can_handle_mcp_message": false,
	}
}

// setEffort sets the reasoning tier of the session's later requests;
// each provider maps it to its own setting (llm.Effort).
func (s *Session) setEffort(effort string, ctl Controls) (map[string]any, error) {
	e, err := llm.ParseEffort(effort)
	if err != nil || e == "" {
		return nil, fmt.Errorf("unknown effort %q: use low, medium, high, xhigh or max", effort)
	}
	set := ctl.efforts()
	if set == nil {
		return nil, fmt.Errorf("changing the effort is not supported in this session")
	}
	if err := set.SetEffort(string(e)); err != nil {
		return nil, err
	}
	return map[string]any{"subtype": "set_effort", "effort": string(e), "applied": true, "override": nil}, nil
}

func contextUsageBody(u info.Context) map[string]any {
	total := u.System + u.Tools + u.History
	body := map[string]any{
		"subtype": "get_context_usage", "model": u.Model, "total_tokens": total,
		"categories":         map[string]any{"system_prompt": u.System, "tools": u.Tools, "history": u.History},
		"last_prompt_tokens": u.Reported, "estimated": true,
	}
	if u.Window > 0 {
		body["context_window"] = u.Window
		body["percentage"] = float64(total) * 100 / float64(u.Window)
	}
	return body
}

// modelsOf puts the session's model list in the protocol's shape.
func modelsOf(list []info.Model) []Model {
	out := make([]Model, len(list))
	for i, m := range list {
		out[i] = Model{ID: m.ID, Label: m.Label, Provider: m.Provider, ContextWindow: m.ContextWindow, Current: m.Current}
	}
	return out
}

// usageInfo reports the tokens of this process's queries. ply keeps no
// usage history across sessions, so every range reports the same totals.
func (s *Session) usageInfo(rng string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{
		"subtype": "get_usage_info", "range": cmp.Or(rng, "session"), "scope": "session",
		"queries": s.ran, "usage": headless.UsageOf(&s.usage),
	}
}

// continueLastTurn runs what a resumed session's interrupted turn still
// owes, as --continue would; accepted is false when nothing is owed.
func (s *Session) continueLastTurn() map[string]any {
	r := s.resumed
	if r == nil {
		return map[string]any{"subtype": "continue_last_turn", "accepted": false, "interruption": nil}
	}
	s.resumed = nil
	kind := map[client.SendType]string{client.ToolResult: "tool_calls", client.Retry: "prompt", client.UserQuery: "reply"}[r.typ]
	s.enqueue(*r)
	return map[string]any{"subtype": "continue_last_turn", "accepted": true, "interruption": kind}
}

// addMCPServers starts initialize's servers before the session is
// announced, so that the init message lists them and their tools.
func (s *Session) addMCPServers(raw map[string]json.RawMessage, embedded []string, ctl Controls) error {
	if ctl.AddMCPServers == nil {
		return fmt.Errorf("MCP servers in initialize are not supported")
	}
	states, tools, err := ctl.AddMCPServers(raw, embedded, s.mcpMessage)
	if err != nil {
		return fmt.Errorf("starting the MCP servers of initialize: %w", err)
	}
	s.mu.Lock()
	s.cfg.MCPServers = append(s.cfg.MCPServers, states...)
	s.cfg.Tools = tools
	s.mu.Unlock()
	return nil
}

// mcpMessage sends msg to the SDK-embedded server and waits for the SDK's
// answer (mcp_message).
func (s *Session) mcpMessage(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error) {
	a, err := s.ask(ctx, map[string]any{"subtype": "mcp_message", "server_name": server, "message": msg})
	if err != nil {
		return nil, err
	}
	var body struct {
		Response json.RawMessage `json:"mcp_response"`
	}
	if err := json.Unmarshal(a, &body); err != nil || len(body.Response) == 0 {
		return nil, fmt.Errorf("the SDK's answer to mcp_message has no mcp_response")
	}
	return body.Response, nil
}

// nonNil makes a nil list print as [], as the SDKs expect.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
