package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/llm"
)

// LoadSession opens a saved session and replays its conversation as
// updates before it answers (session/load).
func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if a.cfg.LoadSession == nil {
		return sdk.LoadSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionLoad)
	}
	s, err := a.open(ctx, p.SessionId, Open{CWD: p.Cwd, MCP: mcpServers(p.McpServers)}, true)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{Modes: s.modeState(), Models: s.modelState(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession opens a saved session without replaying it
// (session/resume): the client still shows it.
func (a *agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	if a.cfg.LoadSession == nil {
		return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
	}
	s, err := a.open(ctx, p.SessionId, Open{CWD: p.Cwd, MCP: mcpServers(p.McpServers)}, false)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: s.modeState(), Models: s.modelState(), ConfigOptions: s.configOptions()}, nil
}

func (a *agent) resumeCapability() *sdk.SessionResumeCapabilities {
	if a.cfg.LoadSession == nil {
		return nil
	}
	return &sdk.SessionResumeCapabilities{}
}

// open opens the saved session id, replaying its conversation first when
// show is set.
func (a *agent) open(ctx context.Context, id sdk.SessionId, o Open, show bool) (*session, error) {
	a.mu.Lock()
	_, open := a.sessions[id]
	a.mu.Unlock()
	if open {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open", id)})
	}
	s := &session{agent: a, id: id}
	core, err := a.cfg.LoadSession(a.ctx, o, string(id), a.hooks(s))
	if err != nil {
		return nil, fmt.Errorf("opening session %s: %w", id, err)
	}
	s.core, s.first = core, core.First
	s.start()
	if show {
		for _, u := range replay(core.History) {
			s.update(ctx, u)
		}
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

// replay is the updates that show history to a client: the user's text,
// the model's text and thoughts, and each call with its result.
func replay(history []llm.Message) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	names := map[string]string{}
	args := map[string]string{}
	for _, m := range history {
		for _, p := range m.Parts {
			switch {
			case p.Call != nil:
				names[p.Call.ID], args[p.Call.ID] = p.Call.Name, p.Call.Args
				d := describe(p.Call.Name, p.Call.Args)
				out = append(out, sdk.StartToolCall(sdk.ToolCallId(p.Call.ID), d.title,
					sdk.WithStartKind(d.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending),
					sdk.WithStartLocations(d.locations), sdk.WithStartRawInput(d.raw)))
			case p.Response != nil:
				r := p.Response
				st := sdk.ToolCallStatusCompleted
				if r.IsError {
					st = sdk.ToolCallStatusFailed
				}
				out = append(out, sdk.UpdateToolCall(sdk.ToolCallId(r.ID), sdk.WithUpdateStatus(st),
					sdk.WithUpdateContent(resultContent(names[r.ID], args[r.ID], r.Output, !r.IsError))))
			case p.Text == "", m.Role == llm.RoleUser && strings.HasPrefix(strings.TrimSpace(p.Text), "<system-reminder>"):
				// What ply added to a prompt (the editor's context, a
				// reminder) is not shown as the user's words.
			case m.Role == llm.RoleUser:
				out = append(out, sdk.UpdateUserMessageText(p.Text))
			case p.Thought:
				out = append(out, sdk.UpdateAgentThoughtText(p.Text))
			default:
				out = append(out, sdk.UpdateAgentMessageText(p.Text))
			}
		}
	}
	return out
}
