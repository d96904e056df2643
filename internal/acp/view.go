package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/turn"
)

// view is how a prompt's loop shows in the client: the reply and the
// thought as they stream, a tool_call for each call before it runs, a
// user message chunk for each round no user typed, and a permission
// request when the per-turn tool-call cap is reached.
type view struct {
	s   *session
	ctx context.Context
}

// Event streams the reply and the thought.
func (v *view) Event(ev turn.Event) {
	switch e := ev.(type) {
	case turn.Content:
		v.s.update(v.ctx, sdk.UpdateAgentMessageText(e.Text))
	case turn.Thought:
		v.s.update(v.ctx, sdk.UpdateAgentThoughtText(e.Text))
	}
}

// BatchStarting reports the calls about to run; truncated calls run too
// (the scheduler answers them).
func (v *view) BatchStarting(calls []*turn.ToolCallRequest) {
	for _, c := range calls {
		v.s.startCall(v.ctx, c.CallID, c.Name, c.Args)
	}
}

// BatchEnded tells the client when a tool changed the approval mode.
func (v *view) BatchEnded([]loop.Outcome, error) { v.s.modeChanged(v.ctx) }

// Announce shows what sent a round no user typed, as a user message chunk:
// the round stands where a user's message would.
func (v *view) Announce(r inbox.Round) {
	v.s.update(v.ctx, sdk.UpdateUserMessageText(roundNotice(r)))
}

// Options of the per-turn cap question.
const (
	optGoOn = "allow_once"
	optStop = "reject_once"
)

// AskTurnCap asks the client, as a permission request on a call of its
// own, whether the model may make n more tool calls in this prompt.
func (v *view) AskTurnCap(ctx context.Context, n int) bool {
	s := v.s
	s.mu.Lock()
	s.asked++
	id := sdk.ToolCallId(fmt.Sprintf("ply-turn-cap-%d", s.asked))
	s.mu.Unlock()
	title := fmt.Sprintf("The model reached %d tool calls in this prompt. Allow another %d tool calls?", n, n)
	s.update(ctx, sdk.StartToolCall(id, title, sdk.WithStartKind(sdk.ToolKindOther),
		sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	resp, err := s.agent.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: s.id,
		ToolCall: sdk.ToolCallUpdate{ToolCallId: id, Title: sdk.Ptr(title), Kind: sdk.Ptr(sdk.ToolKindOther),
			Status: sdk.Ptr(sdk.ToolCallStatusPending)},
		Options: []sdk.PermissionOption{
			{OptionId: optGoOn, Name: fmt.Sprintf("Allow %d more", n), Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optStop, Name: "Stop here", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil && ctx.Err() == nil {
		s.agent.cfg.Log.Warn("acp: asking whether to go past the per-turn cap", "err", err)
	}
	goOn := err == nil && resp.Outcome.Selected != nil && resp.Outcome.Selected.OptionId == optGoOn
	status := sdk.ToolCallStatusCompleted
	if !goOn {
		status = sdk.ToolCallStatusFailed
	}
	s.update(ctx, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status)))
	return goOn
}
