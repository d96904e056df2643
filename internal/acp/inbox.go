package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
)

// A session's inbox rounds: a background task's notification, a
// schedule's firing, a teammate's message.
//
// One that is queued when the model stops during a prompt is sent after
// that round, in the same prompt turn, before its stop reason. The prompt
// does not wait for background work still running, as a person is at the
// other end: what it posts later waits like any round that arrives while
// no prompt runs.
//
// ACP gives the agent no turn of its own: a prompt turn is the client's
// session/prompt, and only within one may the agent stream a reply or ask
// for permission. So a round that arrives while no prompt runs is not
// sent on its own; it waits for the next session/prompt, where it goes
// before the prompt's text, in the same request (its announcement first
// in the turn's updates).

// fromInbox takes the next queued round, if any, after the previous one's
// interaction ended, and announces and records it.
func (s *session) fromInbox(ctx context.Context) (inbox.Round, bool) {
	if s.core.Inbox == nil {
		return inbox.Round{}, false
	}
	s.endInboxRounds()
	r, ok := s.core.Inbox.Take()
	if ok {
		s.startRound(ctx, r)
	}
	return r, ok
}

// queuedRounds takes every round queued while no prompt ran, as parts to
// go before the prompt's.
func (s *session) queuedRounds(ctx context.Context) []llm.Part {
	if s.core.Inbox == nil {
		return nil
	}
	var parts []llm.Part
	for {
		r, ok := s.core.Inbox.Take()
		if !ok {
			return parts
		}
		s.startRound(ctx, r)
		parts = append(parts, llm.Part{Text: r.Text})
	}
}

// teammateParts takes the teammates' messages that arrived while tools
// ran: they go after the results, so a message arrives at the next round
// boundary without breaking a call's pairing with its response.
func (s *session) teammateParts(ctx context.Context) []llm.Part {
	if s.core.Inbox == nil {
		return nil
	}
	var parts []llm.Part
	for _, r := range s.core.Inbox.TakeType(client.Teammate) {
		s.startRound(ctx, r)
		parts = append(parts, llm.Part{Text: r.Text})
	}
	return parts
}

// startRound shows the client what sent r, as a user message chunk (the
// round stands where a user's message would), and records it.
func (s *session) startRound(ctx context.Context, r inbox.Round) {
	s.update(ctx, sdk.UpdateUserMessageText(roundNotice(r)))
	if s.core.OnRound != nil {
		s.core.OnRound(r)
	}
	if r.Done != nil {
		s.inboxDone = append(s.inboxDone, r.Done)
	}
}

// roundNotice is the line that announces r: its type, its source and a
// summary.
func roundNotice(r inbox.Round) string {
	summary := r.Summary
	if summary == "" {
		summary = r.Text
		if len(summary) > 200 {
			summary = strings.ToValidUTF8(summary[:200], "") + "…"
		}
	}
	return fmt.Sprintf("[%s from %s: %s]\n", r.Type, r.Source, summary)
}

// endInboxRounds tells the rounds sent so far that their interaction
// ended.
func (s *session) endInboxRounds() {
	done := s.inboxDone
	s.inboxDone = nil
	for _, f := range done {
		f()
	}
}
