package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
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
	// asked counts the per-turn cap questions, for their call ids.
	asked int
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
// tool, reporting every event to the client. Rounds queued while no
// prompt ran go before the prompt's text, after what a loaded session owes.
func (s *session) prompt(ctx context.Context, parts []llm.Part) (sdk.PromptResponse, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer end()
	s.mu.Lock()
	lead := s.first
	s.first = nil
	s.mu.Unlock()
	var queued []inbox.Round
	for s.core.Inbox != nil {
		r, ok := s.core.Inbox.Take()
		if !ok {
			break
		}
		queued = append(queued, r)
	}
	res := loop.Run(ctx, loop.Config{
		Rounds: s.core.Rounds, Tools: s.core.Tools, Observer: &view{s: s, ctx: ctx},
		Recorder: s.core.Recorder, Inbox: s.core.Inbox, AtEnd: loop.Take, TurnCap: s.core.TurnCap,
		CancelReason: "cancelled by the client",
	}, loop.Input{Lead: lead, Rounds: queued, Parts: parts, Type: client.UserQuery})
	return s.stopReason(ctx, res)
}

// stopReason maps how the loop ended to the prompt's answer.
func (s *session) stopReason(ctx context.Context, res loop.Result) (sdk.PromptResponse, error) {
	answer := func(r sdk.StopReason) (sdk.PromptResponse, error) { return sdk.PromptResponse{StopReason: r}, nil }
	switch res.Stop {
	case loop.Cancelled:
		return answer(sdk.StopReasonCancelled)
	case loop.TurnCapReached, loop.MaxTurns, loop.MaxToolCalls, loop.WallTime:
		return answer(sdk.StopReasonMaxTurnRequests)
	case loop.Loop:
		s.update(ctx, sdk.UpdateAgentMessageText("\n\n[ply stopped: "+res.Message+"]"))
		return answer(sdk.StopReasonEndTurn)
	case loop.ModelError:
		if r, ok := errors.AsType[*client.PromptRefused](res.Err); ok {
			// A hook refused the prompt: it was never sent.
			s.update(ctx, sdk.UpdateAgentMessageText("T"+r.Error()[1:]))
			return answer(sdk.StopReasonRefusal)
		}
		return sdk.PromptResponse{}, fmt.Errorf("asking the model: %w", res.Err)
	case loop.ToolError:
		return sdk.PromptResponse{}, fmt.Errorf("running tools: %w", res.Err)
	case loop.Unsaved:
		// An error, not a stop reason: the client must not take the
		// prompt for done when its work was not recorded.
		return sdk.PromptResponse{}, res.Err
	}
	switch res.Finish {
	case llm.FinishMaxTokens:
		return answer(sdk.StopReasonMaxTokens)
	case llm.FinishContentFilter:
		return answer(sdk.StopReasonRefusal)
	}
	return answer(sdk.StopReasonEndTurn)
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
	m := s.core.modes()
	if m == nil {
		return
	}
	now := m.Mode()
	s.mu.Lock()
	changed := now != s.mode
	s.mode = now
	s.mu.Unlock()
	if changed {
		s.update(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(now)}})
		s.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	}
}
