package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/llm"
)

// LoadSession opens a saved session and replays its conversation as
// updates before it answers (session/load).
func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if a.cfg.LoadSession == nil {
		return sdk.LoadSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionLoad)
	}
	a.mu.Lock()
	_, open := a.sessions[p.SessionId]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open", p.SessionId)})
	}
	s := &session{agent: a, id: p.SessionId}
	core, err := a.cfg.LoadSession(a.ctx, Open{CWD: p.Cwd, MCP: mcpServers(p.McpServers)}, string(p.SessionId), a.hooks(s))
	if err != nil {
		return sdk.LoadSessionResponse{}, fmt.Errorf("loading session %s: %w", p.SessionId, err)
	}
	s.core, s.first = core, core.First
	s.start()
	for _, u := range replay(core.History) {
		s.update(ctx, u)
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return sdk.LoadSessionResponse{Modes: s.modeState(), Models: s.modelState(), ConfigOptions: s.configOptions()}, nil
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
			case p.Text == "":
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
