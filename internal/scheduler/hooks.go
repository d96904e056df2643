package scheduler

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// HookVerdict is a PreToolUse hook's answer for one call. The zero value,
// HookNone, leaves the decision to the Policy.
type HookVerdict int

const (
	HookNone  HookVerdict = iota // no opinion: the policy decides
	HookAllow                    // run without the policy's ask; a policy deny still wins
	HookAsk                      // ask the Approver, even when the policy allows (yolo, allow-always)
	HookDeny                     // do not run: EXECUTION_DENIED with Reason
)

// PreDecision is what the PreToolUse hooks decided for one call.
type PreDecision struct {
	Verdict HookVerdict
	// Reason is shown to the model on a deny and is available to the
	// Approver (through Call.HookDecision) on an ask.
	Reason string
	// UpdatedInput, when set, replaces the call's arguments. It is
	// validated against the tool's schema like the model's own arguments.
	UpdatedInput json.RawMessage
}

// ToolHooks is what the scheduler needs from the user's hooks. The hooks
// package implements it; the scheduler neither knows nor cares that hooks
// are processes.
type ToolHooks interface {
	// PreToolUse runs for each call whose arguments validated, before the
	// policy. A non-nil error means the hooks could not decide; the call
	// is then cancelled (ctx done) or denied (fail closed), never run.
	// The calls of a batch are asked in parallel; c is not yet published
	// to OnUpdate and its Params must not be modified.
	PreToolUse(ctx context.Context, c *Call) (PreDecision, error)
	// PostToolUse runs after each call that executed (success or a tool
	// error; not for calls denied, invalid or cancelled). A non-empty
	// result is appended to the output the model receives.
	PostToolUse(ctx context.Context, c *Call) (extraContext string)
	// PostToolBatch runs once every call of a Run is terminal. stop ends
	// the agent's work after this batch: see BatchStoppedError.
	PostToolBatch(ctx context.Context, calls []*Call) (stop bool, reason string)
}

// WithHooks installs the user's tool hooks. Without it (or with nil) the
// scheduler behaves as if no hook were configured.
func WithHooks(h ToolHooks) Option { return func(s *Scheduler) { s.hooks = h } }

// BatchStoppedError is the error of a Run whose PostToolBatch hook asked
// to stop. Every call is still terminal and its response must still be
// sent back (each carries a note saying the agent was stopped); the entry
// layer should then end the interaction instead of asking the model
// again. Check with errors.As.
type BatchStoppedError struct {
	Reason string // the hook's reason; may be empty
}

func (e *BatchStoppedError) Error() string {
	return withReason("scheduler: a PostToolBatch hook stopped the agent after this batch.", e.Reason)
}

// preToolUse asks the hooks about calls (validated, not yet published) in
// parallel and applies their answers: a deny or an error ends the call,
// rewritten arguments are validated again. It returns the calls that may
// go on to the policy, in order.
func (s *Scheduler) preToolUse(ctx context.Context, calls []*Call) []*Call {
	type answer struct {
		d   PreDecision
		err error
	}
	answers := make([]answer, len(calls))
	slots := make(chan struct{}, s.maxConcurrency)
	var wg sync.WaitGroup
	for i, c := range calls {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			d, err := s.hooks.PreToolUse(ctx, c)
			answers[i] = answer{d, err}
		})
	}
	wg.Wait()

	var out []*Call
	for i, c := range calls {
		a := answers[i]
		switch {
		case ctx.Err() != nil:
			c.cancel("")
			continue
		case a.err != nil:
			// The hooks may have meant to deny this call: fail closed.
			c.fail(ErrorTypeExecutionDenied, fmt.Sprintf(
				"Tool %q was not run: its PreToolUse hooks could not be consulted (%v).", c.Name, a.err))
			continue
		case a.d.Verdict == HookDeny:
			c.fail(ErrorTypeExecutionDenied, withReason(fmt.Sprintf("Execution of tool %q was denied by a PreToolUse hook.", c.Name), a.d.Reason))
			continue
		}
		if len(a.d.UpdatedInput) > 0 {
			params, msg := s.validate(c.Tool, string(a.d.UpdatedInput))
			if msg != "" {
				// Not the model's mistake, so it does not count towards
				// the validation retry loop.
				c.fail(ErrorTypeInvalidParams, "A PreToolUse hook rewrote the arguments, and the result is invalid: "+msg)
				continue
			}
			c.Params = params
		}
		c.pre = a.d
		out = append(out, c)
	}
	return out
}

// postToolUse runs the PostToolUse hooks for a call that executed.
func (s *Scheduler) postToolUse(ctx context.Context, c *Call) {
	if s.hooks == nil || ctx.Err() != nil || c.State() == StateCancelled {
		return
	}
	if extra := s.hooks.PostToolUse(ctx, c); extra != "" {
		c.appendOutput("\n\n" + extra)
	}
}

// postToolBatch runs the PostToolBatch hooks once the batch is terminal
// and returns a *BatchStoppedError when they stop it.
func (s *Scheduler) postToolBatch(ctx context.Context, calls []*Call) error {
	if s.hooks == nil || len(calls) == 0 || ctx.Err() != nil {
		return nil
	}
	stop, reason := s.hooks.PostToolBatch(ctx, calls)
	if !stop {
		return nil
	}
	note := "\n\n[" + withReason("A PostToolBatch hook stopped the agent after this batch of tool calls.", reason) + "]"
	for _, c := range calls {
		c.appendOutput(note)
	}
	return &BatchStoppedError{Reason: reason}
}

// rewrite replaces the arguments of c, awaiting approval, with an
// approver's updated input: validated like the model's own, then checked
// against the policy, so that a rewrite cannot turn an allowed call into
// one the user's rules deny. It reports whether c may run; when not, c
// has failed with the reason.
func (s *Scheduler) rewrite(ctx context.Context, c *Call, d Decision) bool {
	who := cmp.Or(d.RewrittenBy, "The approver")
	params, msg := s.validate(c.Tool, d.UpdatedInput)
	if msg != "" {
		c.fail(ErrorTypeInvalidParams, who+" rewrote the arguments, and the result is invalid: "+msg)
		return false
	}
	// The approver runs in this goroutine and nothing else reads Params
	// until the call is scheduled.
	c.Params = params
	if v, reason, _ := s.check(ctx, c); v == VerdictDeny {
		c.fail(ErrorTypeExecutionDenied, withReason(fmt.Sprintf(
			"%s rewrote the arguments of tool %q, and the permission policy denies the rewritten call, so it was not run.", who, c.Name), reason))
		return false
	}
	return true
}
