package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// session is one protocol session: its layers and the prompt running in
// it, if any.
type session struct {
	agent *agent
	core  *Session
	id    sdk.SessionId

	mu sync.Mutex
	// mode, model and effort are the session's settings the client
	// sees.
	mode, model, effort string
	// terminals: the client offers terminals; editorTerminal: it asked
	// for shell commands to run in them (terminals.go).
	terminals, editorTerminal bool
	// stop cancels the running prompt; done is closed when it ended.
	stop context.CancelFunc
	done chan struct{}
	// first goes before the next prompt's parts (see Session.First).
	first []llm.Part
	// started holds the ids of calls a tool_call was sent for.
	started map[string]bool
	// inboxDone end the interactions of the inbox rounds the running
	// prompt sent (inbox.go); only the prompt's goroutine uses it.
	inboxDone []func()
}

// cancel stops the running prompt, if any.
func (s *session) cancel() {
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// wait returns when no prompt runs.
func (s *session) wait() {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

// begin claims the session for one prompt: the context cancel stops,
// and end, which releases the session.
func (s *session) begin(ctx context.Context) (context.Context, func(), error) {
	ctx, stop := context.WithCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		stop()
		return nil, nil, errBusy
	}
	done := make(chan struct{})
	s.stop, s.done, s.started = stop, done, map[string]bool{}
	return ctx, func() {
		stop()
		s.mu.Lock()
		s.stop, s.done = nil, nil
		s.mu.Unlock()
		close(done)
	}, nil
}

// errBusy answers a prompt sent while another runs in the session.
var errBusy = errors.New("a prompt is already running in this session")

// prompt runs the loop for one prompt: rounds until the model asks for no
// tool, reporting every event to the client.
func (s *session) prompt(ctx context.Context, parts []llm.Part) (sdk.PromptResponse, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer end()
	defer s.endInboxRounds()
	queued := s.queuedRounds(ctx)
	s.mu.Lock()
	parts = append(append(s.first, queued...), parts...)
	s.first = nil
	s.mu.Unlock()
	reason, err := s.loop(ctx, parts)
	if ctx.Err() != nil {
		if s.core.OnCancel != nil {
			s.core.OnCancel("cancelled by the client")
		}
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return sdk.PromptResponse{StopReason: reason}, nil
}

func (s *session) loop(ctx context.Context, parts []llm.Part) (sdk.StopReason, error) {
	typ := client.UserQuery
	for {
		calls, reason, err := s.round(ctx, parts, typ)
		if err != nil || reason != "" || ctx.Err() != nil {
			return reason, err
		}
		if s.core.Checkpoint != nil {
			// The reply and its calls are on disk before a tool runs.
			s.core.Checkpoint()
		}
		if len(calls) == 0 {
			next, ok := s.fromInbox(ctx)
			if !ok {
				return sdk.StopReasonEndTurn, nil
			}
			parts, typ = []llm.Part{{Text: next.Text}}, next.Type
			continue
		}
		resps, err := s.core.Tools.RunTools(ctx, calls)
		s.modeChanged(ctx)
		parts = make([]llm.Part, len(resps))
		for i := range resps {
			parts[i] = llm.Part{Response: &resps[i]}
		}
		if err != nil || ctx.Err() != nil {
			// The prompt ends here; the calls that finished keep their
			// real results.
			if len(parts) > 0 && s.core.KeepResults != nil {
				s.core.KeepResults(parts)
			}
			if ctx.Err() != nil {
				return "", nil
			}
			return "", fmt.Errorf("running tools: %w", err)
		}
		parts = append(parts, s.teammateParts(ctx)...)
		typ = client.ToolResult
	}
}

// round runs one round-trip and reports its events. It returns the calls
// to run, or a stop reason that ends the prompt, or an error.
func (s *session) round(ctx context.Context, parts []llm.Part, typ client.SendType) ([]*turn.ToolCallRequest, sdk.StopReason, error) {
	var calls []*turn.ToolCallRequest
	var finish llm.FinishReason
	for ev := range s.core.Rounds.SendMessageStream(ctx, parts, typ) {
		switch e := ev.(type) {
		case turn.Content:
			s.update(ctx, sdk.UpdateAgentMessageText(e.Text))
		case turn.Thought:
			s.update(ctx, sdk.UpdateAgentThoughtText(e.Text))
		case *turn.ToolCallRequest:
			calls = append(calls, e)
		case turn.Retry:
			calls = nil
		case turn.ChatCompressed:
			if s.core.OnCompressed != nil {
				s.core.OnCompressed()
			}
		case turn.Finished:
			finish = e.Reason
		case turn.UserCancelled:
			return nil, "", nil
		case turn.LoopDetected:
			if e.Guard == s.core.MaxTurnGuard && s.core.MaxTurnGuard != "" {
				return nil, sdk.StopReasonMaxTurnRequests, nil
			}
			s.update(ctx, sdk.UpdateAgentMessageText("\n\n[ply stopped: "+e.Message+"]"))
			return nil, sdk.StopReasonEndTurn, nil
		case turn.Error:
			if ctx.Err() != nil {
				return nil, "", nil
			}
			if r, ok := errors.AsType[*client.PromptRefused](e.Err); ok {
				// A hook refused the prompt: it was never sent.
				s.update(ctx, sdk.UpdateAgentMessageText("T"+r.Error()[1:]))
				return nil, sdk.StopReasonRefusal, nil
			}
			return nil, "", fmt.Errorf("asking the model: %w", e.Err)
		}
	}
	if len(calls) > 0 {
		// Truncated calls still run (the scheduler answers them).
		for _, c := range calls {
			s.startCall(ctx, c.CallID, c.Name, c.Args)
		}
		return calls, "", nil
	}
	switch finish {
	case llm.FinishMaxTokens:
		return nil, sdk.StopReasonMaxTokens, nil
	case llm.FinishContentFilter:
		return nil, sdk.StopReasonRefusal, nil
	}
	return nil, "", nil
}

// update sends one session/update; a failure to send is logged, the
// prompt goes on (the client may have gone; the read loop will end).
func (s *session) update(ctx context.Context, u sdk.SessionUpdate) {
	if err := s.agent.conn.SessionUpdate(context.WithoutCancel(ctx), sdk.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		s.agent.cfg.Log.Warn("acp: sending a session update", "err", err)
	}
}

// startCall reports a call the model asked for, once.
func (s *session) startCall(ctx context.Context, id, name, args string) {
	s.mu.Lock()
	seen := s.started[id]
	if s.started != nil {
		s.started[id] = true
	}
	s.mu.Unlock()
	if seen {
		return
	}
	d := describe(name, args)
	s.update(ctx, sdk.StartToolCall(sdk.ToolCallId(id), d.title,
		sdk.WithStartKind(d.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartLocations(d.locations), sdk.WithStartRawInput(d.raw)))
}

// known reports whether a tool_call was sent for the call id.
func (s *session) known(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started[id]
}

// onUpdate reports a call's state change (scheduler.WithOnUpdate).
func (s *session) onUpdate(c *scheduler.Call) {
	ctx := context.Background()
	s.startCall(ctx, c.CallID, c.Name, c.Args)
	id := sdk.ToolCallId(c.CallID)
	switch st := c.State(); st {
	case scheduler.StateExecuting:
		s.update(ctx, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	case scheduler.StateSuccess:
		s.update(ctx, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted),
			sdk.WithUpdateContent(resultContent(c.Name, c.Args, c.Response().Output, true))))
		if entries, ok := planOf(c.Name, c.Args); ok {
			s.update(ctx, sdk.UpdatePlan(entries...))
		}
	case scheduler.StateError, scheduler.StateCancelled:
		s.update(ctx, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent(resultContent(c.Name, c.Args, c.Response().Output, false))))
	}
}

// Permission options offered for every call.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// Approve asks the client whether c may run (scheduler.Approver).
func (s *session) Approve(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error) {
	d := describe(c.Name, c.Args)
	resp, err := s.agent.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: s.id,
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(c.CallID), Title: sdk.Ptr(d.title), Kind: sdk.Ptr(d.kind),
			Status: sdk.Ptr(sdk.ToolCallStatusPending), Locations: d.locations, RawInput: d.raw,
			Content: proposedContent(c.Name, c.Args),
		},
		Options: []sdk.PermissionOption{
			{OptionId: optAllowOnce, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optAllowAlways, Name: "Always allow " + c.Name, Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return scheduler.Decision{}, ctx.Err()
		}
		return scheduler.Decision{}, fmt.Errorf("asking the client for permission: %w", err)
	}
	switch o := resp.Outcome; {
	case o.Cancelled != nil:
		return scheduler.Decision{Outcome: scheduler.OutcomeCancel}, nil
	case o.Selected != nil && o.Selected.OptionId == optAllowOnce:
		return scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce}, nil
	case o.Selected != nil && o.Selected.OptionId == optAllowAlways:
		return scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways}, nil
	}
	return scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: "the user rejected this call"}, nil
}

// rawArgs is a call's arguments as JSON for rawInput, or the text when
// they do not parse.
func rawArgs(args string) any {
	var v any
	if json.Unmarshal([]byte(args), &v) == nil {
		return v
	}
	return args
}

// modeChanged tells the client when a tool changed the approval mode.
func (s *session) modeChanged(ctx context.Context) {
	if s.core.CurrentMode == nil {
		return
	}
	now := s.core.CurrentMode()
	s.mu.Lock()
	changed := now != s.mode
	s.mode = now
	s.mu.Unlock()
	if changed {
		s.update(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(now)}})
		s.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	}
}
