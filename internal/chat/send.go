package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// errStopped marks that the consumer stopped ranging; nothing more may be
// yielded.
var errStopped = errors.New("consumer stopped")

// SendMessageStream pushes user (skipped when it has no parts: a Retry
// resend of the history as it stands), sends the history and streams the
// reply. Failures are retried by class; every retry is announced with an
// EventRetry first. The final error, if any, is the iterator's last value.
//
// When the stream finishes, the model reply is in the history with its
// finish reason and usage. When ctx is cancelled, the partial reply stays
// in the history without a finish reason, so a resumed session can tell a
// cut reply from a finished one.
func (c *Chat) SendMessageStream(ctx context.Context, user llm.Message) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		if len(user.Parts) > 0 {
			user.Role = llm.RoleUser
			c.pushUser(user)
		}
		err := c.send(ctx, yield)
		if err != nil && !errors.Is(err, errStopped) {
			yield(StreamEvent{}, err)
		}
	}
}

func (c *Chat) send(ctx context.Context, yield func(StreamEvent, error) bool) error {
	var (
		used      = map[failureClass]int{}
		attempts  = 0
		maxOut    = 0
		compacted = false
	)
	if ev, ok := c.maybeCompress(ctx); ok {
		if !yield(ev, nil) {
			return errStopped
		}
	}
	for {
		attempts++
		rep, yielded, err := c.attempt(ctx, maxOut, yield)
		if errors.Is(err, errStopped) {
			return err
		}
		if err == nil {
			if rep.msg.FinishReason != llm.FinishMaxTokens || rep.hasCalls() {
				c.finishPartial()
				return nil
			}
			// Cut at the output limit without a call: first ask again
			// with a higher limit, then continue the reply.
			if maxOut < raisedMaxOutput {
				maxOut = raisedMaxOutput
				c.popPartialIfPushed()
				if !yield(StreamEvent{Kind: EventRetry, Attempt: attempts, Class: RetryOutputLimit, Reason: "reply hit the output token limit; retrying with a higher limit"}, nil) {
					return errStopped
				}
				continue
			}
			return c.settle(ctx, maxOut, attempts, errors.New("the reply hit the output token limit"), yield)
		}
		if ctx.Err() != nil {
			c.abandonPartial()
			return ctx.Err()
		}
		class := classify(err)
		p := c.cfg.Retry
		var delay time.Duration
		budget := 0
		switch class {
		case classRateLimit:
			budget = p.RateLimitAttempts
			delay = backoff(p.RateLimitBaseDelay, p.RateLimitMaxDelay, used[class]+1, true)
			var api *llm.APIError
			if errors.As(err, &api) && api.RetryAfter > 0 {
				delay = min(api.RetryAfter, p.RateLimitMaxDelay)
			}
		case classTransport:
			// Replaying after a chunk reached the caller would show the
			// same text twice: continue the reply instead, when it is
			// text only.
			if yielded {
				if !rep.hasCalls() && rep.text() != "" {
					return c.settle(ctx, maxOut, attempts, err, yield)
				}
				budget = 0
			} else {
				budget = p.TransportAttempts
			}
			delay = backoff(p.TransportBaseDelay, 0, used[class]+1, false)
		case classServer:
			budget = p.ServerAttempts
			delay = backoff(p.ServerBaseDelay, 0, used[class]+1, true)
		case classInvalidStream:
			budget = p.ContentAttempts
			delay = backoff(p.ContentBaseDelay, 0, used[class]+1, false)
		case classContextLength:
			// Shrink once: cut oversized tool results, summarise the
			// older part, and resend only when the result fits.
			if !compacted {
				compacted = true
				c.popPartialIfPushed()
				ev, changed, rerr := c.recoverContext(ctx, err)
				if changed && rerr != nil {
					// Report the change so that it is recorded: a resumed
					// session must not resend the oversized history.
					if !yield(ev, nil) {
						return errStopped
					}
				}
				if rerr != nil {
					return &FailedError{What: class.String(), Attempts: attempts, Err: rerr}
				}
				if !yield(StreamEvent{Kind: EventRetry, Attempt: attempts, Class: class.key(), Reason: err.Error()}, nil) {
					return errStopped
				}
				if !yield(ev, nil) {
					return errStopped
				}
				continue
			}
		}
		if used[class] >= budget {
			if class == classInvalidStream {
				if ok := c.acceptBadToolArgs(err); ok {
					return nil
				}
			}
			c.popPartialIfPushed()
			return &FailedError{What: class.String(), Attempts: attempts, Err: err}
		}
		used[class]++
		c.popPartialIfPushed()
		c.log.Info("chat: retrying model request", "class", class.String(), "attempt", attempts, "delay", delay, "err", err)
		if !yield(StreamEvent{Kind: EventRetry, Attempt: attempts, Class: class.key(), Reason: err.Error()}, nil) {
			return errStopped
		}
		if err := sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// settle continues the reply in flight and settles it.
func (c *Chat) settle(ctx context.Context, maxOut, attempts int, why error, yield func(StreamEvent, error) bool) error {
	tries, err := c.continueReply(ctx, maxOut, why, yield)
	return c.endContinuation(ctx, tries, err, attempts)
}

// endContinuation settles the reply after continueReply: done, stopped by
// the consumer, cancelled, or failed. A failed continuation keeps the text
// the user already saw, marked as cut (no finish reason), rather than
// removing it from history.
func (c *Chat) endContinuation(ctx context.Context, tries int, err error, attempts int) error {
	switch {
	case err == nil || errors.Is(err, errStopped):
		return err
	case ctx.Err() != nil:
		c.abandonPartial()
		return ctx.Err()
	}
	c.abandonPartial()
	return &FailedError{What: "continuing a cut reply", Attempts: attempts + tries, Err: err}
}

// badToolArgsError is an invalid-stream error whose reply is otherwise
// complete: once the content budget is spent, the reply is kept and the
// scheduler tells the model precisely what was wrong with its arguments.
type badToolArgsError struct {
	inner *llm.InvalidStreamError
}

func (e *badToolArgsError) Error() string { return e.inner.Error() }
func (e *badToolArgsError) Unwrap() error { return e.inner }

func (c *Chat) acceptBadToolArgs(err error) bool {
	var bad *badToolArgsError
	if !errors.As(err, &bad) {
		return false
	}
	c.finishPartial()
	return true
}

// attempt makes one request and streams it. yielded reports whether any
// chunk reached the caller.
func (c *Chat) attempt(ctx context.Context, maxOut int, yield func(StreamEvent, error) bool) (rep *reply, yielded bool, err error) {
	rep = &reply{msg: llm.Message{Role: llm.RoleModel}}
	req := c.request(maxOut)
	err = c.streamInto(ctx, req, rep, nil, yield)
	yielded = len(rep.msg.Parts) > 0
	if err != nil {
		return rep, yielded, err
	}
	if u := rep.msg.Usage; u != nil {
		c.calibrate(u.InputTokens, estimateRequest(req))
	}
	if len(rep.msg.Parts) == 0 && rep.msg.FinishReason != llm.FinishMaxTokens {
		return rep, yielded, &llm.InvalidStreamError{Reason: "the model sent an empty response"}
	}
	if rep.msg.FinishReason == llm.FinishUnspecified {
		return rep, yielded, &llm.InvalidStreamError{Reason: "stream ended without a finish reason"}
	}
	for _, call := range rep.msg.Calls() {
		if call.Args != "" && !json.Valid([]byte(call.Args)) {
			return rep, yielded, &badToolArgsError{&llm.InvalidStreamError{
				Reason: fmt.Sprintf("arguments of tool call %s (%s) are not valid JSON", call.ID, call.Name)}}
		}
	}
	return rep, yielded, nil
}

// streamInto streams req into rep, keeping rep in history as the partial
// reply in flight and passing each chunk on. With a seam, the start of the
// text is held back until the repeat at the seam can be dropped.
func (c *Chat) streamInto(ctx context.Context, req *llm.Request, rep *reply, seam *seam, yield func(StreamEvent, error) bool) error {
	pass := func(ch llm.Chunk) error {
		if ch.Empty() {
			return nil
		}
		rep.add(&ch)
		c.updatePartial(rep)
		if !yield(StreamEvent{Kind: EventChunk, Chunk: ch}, nil) {
			c.abandonPartial()
			return errStopped
		}
		return nil
	}
	for ch, err := range c.provider.Stream(ctx, req) {
		if err != nil {
			return err
		}
		for i := range ch.Calls {
			rep.name(&ch.Calls[i], c.holdsCallID)
		}
		if seam != nil {
			ch.Text = seam.filter(ch.Text, len(ch.Calls) > 0 || ch.FinishReason != "")
		}
		if err := pass(ch); err != nil {
			return err
		}
	}
	if seam != nil && !seam.done {
		if err := pass(llm.Chunk{Text: seam.filter("", true)}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// updatePartial pushes the reply in flight into history, or updates the
// entry it pushed before.
func (c *Chat) updatePartial(rep *reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.partial < 0 {
		c.history = append(c.history, rep.msg)
		c.partial = len(c.history) - 1
		return
	}
	if c.partial < len(c.history) {
		c.history[c.partial] = rep.msg
	}
}

// finishPartial makes the reply in flight a final history entry.
func (c *Chat) finishPartial() {
	c.mu.Lock()
	i := c.partial
	c.partial = -1
	var m llm.Message
	ok := i >= 0 && i < len(c.history)
	if ok {
		m = c.history[i]
	}
	c.mu.Unlock()
	if ok && c.onAppend != nil {
		c.onAppend(m)
	}
}

// abandonPartial keeps what was shown of an interrupted reply, without a
// finish reason and without calls that will never run.
func (c *Chat) abandonPartial() {
	c.mu.Lock()
	i := c.partial
	if i >= 0 && i < len(c.history) {
		m := &c.history[i]
		parts := m.Parts[:0:0]
		for _, p := range m.Parts {
			if p.Call == nil {
				parts = append(parts, p)
			}
		}
		m.Parts = parts
		m.FinishReason = llm.FinishUnspecified
		if len(parts) == 0 {
			c.history = c.history[:i]
			c.partial = -1
			c.mu.Unlock()
			return
		}
	}
	c.mu.Unlock()
	c.finishPartial()
}
