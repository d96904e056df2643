package acp

import (
	"context"
	"fmt"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/tools"
)

// optSkipQuestions is the option that declines a question.
const optSkipQuestions = "skip"

// AskQuestions puts the model's questions (ask_user_question) to the
// client, one session/request_permission per question: the protocol's
// stable way to offer the user a choice among named options. Each option
// is one "allow_once" choice, and a "reject_once" one declines them all.
// The request cannot carry free text, so the "other" answer of the TUI is
// not offered, and a multiple-choice question takes one option. It
// implements tools.QuestionAsker.
func (s *session) AskQuestions(ctx context.Context, qs []tools.Question) ([]tools.QuestionAnswer, error) {
	callID := tools.CallID(ctx)
	answers := make([]tools.QuestionAnswer, 0, len(qs))
	for i, q := range qs {
		title := q.Question
		if len(qs) > 1 {
			title = fmt.Sprintf("(%d of %d) %s", i+1, len(qs), q.Question)
		}
		opts := make([]sdk.PermissionOption, 0, len(q.Options)+1)
		for j, o := range q.Options {
			name := o.Label
			if o.Description != "" {
				name += " — " + o.Description
			}
			opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(strconv.Itoa(j)), Name: name, Kind: sdk.PermissionOptionKindAllowOnce})
		}
		opts = append(opts, sdk.PermissionOption{OptionId: optSkipQuestions, Name: "Skip the questions", Kind: sdk.PermissionOptionKindRejectOnce})
		resp, err := s.agent.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
			SessionId: s.id,
			ToolCall: sdk.ToolCallUpdate{
				ToolCallId: sdk.ToolCallId(callID), Title: sdk.Ptr(title), Kind: sdk.Ptr(sdk.ToolKindThink),
				Status: sdk.Ptr(sdk.ToolCallStatusInProgress),
			},
			Options: opts,
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("asking the client: %w", err)
		}
		o := resp.Outcome
		if o.Cancelled != nil {
			return nil, context.Canceled
		}
		if o.Selected == nil || o.Selected.OptionId == optSkipQuestions {
			return nil, tools.ErrQuestionDeclined
		}
		j, err := strconv.Atoi(string(o.Selected.OptionId))
		if err != nil || j < 0 || j >= len(q.Options) {
			return nil, fmt.Errorf("the client chose option %q, which was not offered", o.Selected.OptionId)
		}
		answers = append(answers, tools.QuestionAnswer{Labels: []string{q.Options[j].Label}})
	}
	return answers, nil
}
