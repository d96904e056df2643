package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/tools"
)

// batch is a run of scheduled calls executed together: in parallel when
// parallel, otherwise a single call running alone.
type batch struct {
	calls    []*Call
	parallel bool
}

// batches cuts the scheduled calls into batches, in order: consecutive
// concurrency-safe calls share one parallel batch, every other call is a
// batch of its own. Calls already terminal take no part and do not
// separate their neighbours.
func batches(calls []*Call) []batch {
	var out []batch
	for _, c := range calls {
		if c.State() != StateScheduled {
			continue
		}
		safe := concurrencySafe(c)
		if safe && len(out) > 0 && out[len(out)-1].parallel {
			last := &out[len(out)-1]
			last.calls = append(last.calls, c)
			continue
		}
		out = append(out, batch{calls: []*Call{c}, parallel: safe})
	}
	return out
}

// concurrencySafe reports whether c may overlap other safe calls. A tool
// that answers for its arguments (tools.ConcurrencySafe) decides; other
// tools are safe when their kind only reads. A panic in the check means
// unsafe: fail closed.
func concurrencySafe(c *Call) (safe bool) {
	cs, ok := c.Tool.(tools.ConcurrencySafe)
	if !ok {
		return c.Tool.Kind().ReadOnly()
	}
	defer func() {
		if recover() != nil {
			safe = false
		}
	}()
	return cs.ConcurrencySafe(c.Params)
}

// execute runs the batches one after another. Execution starts only now,
// when no call is waiting on approval any more.
func (s *Scheduler) execute(ctx context.Context, calls []*Call) {
	for _, b := range batches(calls) {
		if !b.parallel {
			s.runCall(ctx, b.calls[0])
			continue
		}
		s.runParallel(ctx, b.calls)
	}
}

// runParallel runs calls with at most maxConcurrency at once, as a sliding
// window: a slot freed by any call starts the next one.
func (s *Scheduler) runParallel(ctx context.Context, calls []*Call) {
	if len(calls) == 1 {
		s.runCall(ctx, calls[0])
		return
	}
	slots := make(chan struct{}, s.maxConcurrency)
	var wg sync.WaitGroup
	for _, c := range calls {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			c.cancel("") // not started; a slot taken just now is never used
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			s.runCall(ctx, c)
		})
	}
	wg.Wait()
}

// runCall executes one call and records its outcome.
func (s *Scheduler) runCall(ctx context.Context, c *Call) {
	if ctx.Err() != nil {
		c.cancel("")
		return
	}
	if !c.setState(StateExecuting) {
		return
	}
	var out tools.Output
	if s.liveOutput != nil {
		out = s.liveOutput(c)
	}
	res, err := invoke(ctx, c, out)
	switch {
	case err == nil:
		c.finishResult(res)
	case errors.Is(err, context.Canceled) || (ctx.Err() != nil && errors.Is(err, ctx.Err())):
		c.cancel(stoppedOutput(ctx, res.Output))
		return
	default:
		c.fail(ErrorTypeExecution, fmt.Sprintf("Tool %q failed: %v", c.Name, err))
	}
	s.postToolUse(ctx, c)
}

// invoke calls the tool, turning a panic into an error result so that a
// broken tool costs one failed call, never the process.
func invoke(ctx context.Context, c *Call, out tools.Output) (res tools.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = tools.Result{
				IsError:   true,
				ErrorType: ErrorTypePanic,
				Output:    fmt.Sprintf("Tool %q crashed (%v). This is a bug in the tool, not in your call.", c.Name, v),
			}, nil
		}
	}()
	ctx = tools.WithCallID(ctx, c.CallID)
	if c.confine != tools.Unconfined {
		ctx = tools.WithConfinement(ctx, c.confine)
	}
	return c.Tool.Execute(ctx, c.Params, out)
}

// stoppedOutput is what the model is told of a call its context stopped
// while it ran: who stopped it (the user, or the cause the context names,
// such as the wall-time limit), then what the call printed until then,
// which it may still use.
func stoppedOutput(ctx context.Context, printed string) string {
	msg := CancelledMessage
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		msg = "Tool call was stopped: " + cause.Error() + "."
	}
	if strings.TrimSpace(printed) != "" {
		msg += " What it printed before it stopped:\n" + printed
	}
	return msg
}
