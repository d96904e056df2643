// Package turn translates one round-trip's stream of provider chunks into
// a discriminated set of semantic events (Content, Thought,
// ToolCallRequest, Finished, Error, UserCancelled, Retry, ChatCompressed,
// LoopDetected) and keeps the round's pending tool calls.
//
// It runs no tools and keeps no history: the chat layer below owns
// history and HTTP, the client above owns the round's policy.
package turn

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
)

// Event is one of the concrete event types of this package.
type Event interface{ isEvent() }

// Content is visible text.
type Content struct{ Text string }

// Thought is reasoning text.
type Thought struct{ Text, Signature string }

// ToolCallRequest is a tool call the model asked for. The pointer is the
// turn's pending call: a later Finished with MAX_TOKENS sets
// WasOutputTruncated on it, so collect the pointers and read the flag after
// the stream ended.
type ToolCallRequest struct {
	CallID             string
	Name               string
	Args               string
	WasOutputTruncated bool
	// RepeatOf is the id of an earlier call of the same reply that this
	// one repeats (llm.FunctionCall.RepeatOf): it must be answered, never
	// run.
	RepeatOf string
}

// Finished ends the round-trip.
type Finished struct {
	Reason llm.FinishReason
	Usage  *llm.Usage
	// Text is the round's whole visible reply, as the Content events
	// spelled it out. Taken from the reply the sender recorded when it can
	// give it (see Replier), so that a large answer is held once and not
	// accumulated again by every layer above.
	Text string
}

// Continued reports that the reply was cut after text was shown and is
// being continued; what was shown stays. Attempt counts continuations.
type Continued struct {
	Attempt int
	Reason  string
}

// Error is a failed request; the round is over.
type Error struct{ Err error }

// UserCancelled reports that the context was cancelled; drop this round's
// state.
type UserCancelled struct{}

// Retry tells the consumer to discard what it rendered of the last
// attempt.
type Retry struct {
	Attempt int
	Reason  string
	// Class is the failure's class, as chat names it ("rate_limit", …).
	Class string
}

// ChatCompressed reports that history was compressed before sending.
type ChatCompressed struct{ TokensBefore, TokensAfter int }

// LoopDetected reports that the model goes in circles; run no tools.
type LoopDetected struct {
	Guard   string
	Message string
}

func (Content) isEvent()          {}
func (Thought) isEvent()          {}
func (*ToolCallRequest) isEvent() {}
func (Finished) isEvent()         {}
func (Error) isEvent()            {}
func (UserCancelled) isEvent()    {}
func (Retry) isEvent()            {}
func (ChatCompressed) isEvent()   {}
func (LoopDetected) isEvent()     {}
func (Continued) isEvent()        {}

// Sender is the part of the chat a turn needs.
type Sender interface {
	SendMessageStream(ctx context.Context, user llm.Message) iter.Seq2[chat.StreamEvent, error]
}

// Replier is a Sender that gives the model reply it recorded for the last
// round (the chat keeps it in its history).
type Replier interface {
	LastReply() (llm.Message, bool)
}

// Turn is one round-trip. Use a new Turn per round.
type Turn struct {
	pending      []*ToolCallRequest
	finishReason llm.FinishReason
	usage        *llm.Usage
}

// New returns an empty turn.
func New() *Turn { return &Turn{} }

// Pending returns the tool calls requested in this round, in order.
func (t *Turn) Pending() []*ToolCallRequest { return t.pending }

// FinishReason returns the round's finish reason once Finished was seen.
func (t *Turn) FinishReason() llm.FinishReason { return t.finishReason }

// Run sends user through s and yields the round's events.
func (t *Turn) Run(ctx context.Context, s Sender, user llm.Message) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		// Without a Replier, the turn spells the text out itself.
		rep, isReplier := s.(Replier)
		var text strings.Builder
		for ev, err := range s.SendMessageStream(ctx, user) {
			if err != nil {
				if errors.Is(err, context.Canceled) || ctx.Err() != nil {
					yield(UserCancelled{})
					return
				}
				yield(Error{Err: err})
				return
			}
			switch ev.Kind {
			case chat.EventRetry:
				// A retried stream replays its calls; without this they
				// would stack on the first attempt's and run twice.
				t.pending = nil
				t.finishReason = ""
				t.usage = nil
				text.Reset()
				if !yield(Retry{Attempt: ev.Attempt, Reason: ev.Reason, Class: ev.Class}) {
					return
				}
			case chat.EventContinue:
				if !yield(Continued{Attempt: ev.Attempt, Reason: ev.Reason}) {
					return
				}
			case chat.EventCompressed:
				if !yield(ChatCompressed{TokensBefore: ev.TokensBefore, TokensAfter: ev.TokensAfter}) {
					return
				}
			case chat.EventChunk:
				if !isReplier {
					text.WriteString(ev.Chunk.Text)
				}
				if !t.chunk(&ev.Chunk, yield) {
					return
				}
			}
		}
		if ctx.Err() != nil {
			yield(UserCancelled{})
			return
		}
		// Finished comes after the stream so that usage sent after the
		// finish reason is included.
		f := Finished{Reason: t.finishReason, Usage: t.usage, Text: text.String()}
		if isReplier {
			if m, ok := rep.LastReply(); ok {
				f.Text = m.Text()
			}
		}
		yield(f)
	}
}

func (t *Turn) chunk(ch *llm.Chunk, yield func(Event) bool) bool {
	if ch.Thought != "" || ch.ThoughtSignature != "" {
		if !yield(Thought{Text: ch.Thought, Signature: ch.ThoughtSignature}) {
			return false
		}
	}
	if ch.Text != "" {
		if !yield(Content{Text: ch.Text}) {
			return false
		}
	}
	for _, c := range ch.Calls {
		id := c.ID
		if id == "" {
			// The chat layer names calls before they enter history; this
			// is the last line of defence for other senders.
			id = chat.NewCallID(c.Name)
		}
		req := &ToolCallRequest{CallID: id, Name: c.Name, Args: c.Args, RepeatOf: c.RepeatOf}
		t.pending = append(t.pending, req)
		if !yield(req) {
			return false
		}
	}
	if ch.Usage != nil {
		t.usage = ch.Usage
	}
	if ch.FinishReason != "" {
		t.finishReason = ch.FinishReason
		if ch.FinishReason == llm.FinishMaxTokens {
			// Arguments of a call cut at the token limit may be
			// incomplete; the scheduler refuses edit kinds on them.
			for _, p := range t.pending {
				p.WasOutputTruncated = true
			}
		}
	}
	return true
}
