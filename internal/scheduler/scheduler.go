package scheduler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/tools"
)

// Defaults.
const (
	// DefaultMaxConcurrency caps the calls of one parallel batch running
	// at once.
	DefaultMaxConcurrency = 10
	// DefaultOutputBudget is the total output, in bytes, one batch may send
	// back before its largest outputs are spilled to files.
	DefaultOutputBudget = 200_000
	// ValidationRetryLoopThreshold is the count of identical validation
	// errors at which the model is told to stop retrying.
	ValidationRetryLoopThreshold = 3
	// EnvMaxConcurrency names the environment variable read by
	// MaxConcurrencyFromEnv.
	EnvMaxConcurrency = "PLY_MAX_TOOL_CONCURRENCY"
)

// DefaultApprovalHint is appended to the error of a call that needs
// approval when there is no Approver (headless runs).
const DefaultApprovalHint = "Retrying will not help. Tools that read or search, and shell commands that only read (ls, cat, grep, git status, git diff, git log), run without approval: " +
	"do what you can with them, then finish and tell the user what you could not do or verify. The user can allow more with an approval mode or a permission rule."

// Option configures a Scheduler.
type Option func(*Scheduler)

// WithPolicy sets the policy; the default is ReadOnlyPolicy.
func WithPolicy(p Policy) Option { return func(s *Scheduler) { s.policy = p } }

// WithApprover sets who is asked when the policy says VerdictAsk. Without
// one, such calls fail with EXECUTION_DENIED and the approval hint.
func WithApprover(a Approver) Option { return func(s *Scheduler) { s.approver = a } }

// WithApprovalHint replaces DefaultApprovalHint, for front ends whose
// flags differ.
func WithApprovalHint(h string) Option { return func(s *Scheduler) { s.approvalHint = h } }

// WithMaxConcurrency caps a parallel batch at n calls at once (n ≥ 1).
func WithMaxConcurrency(n int) Option {
	return func(s *Scheduler) {
		if n >= 1 {
			s.maxConcurrency = n
		}
	}
}

// MaxConcurrencyFromEnv reads the cap from PLY_MAX_TOOL_CONCURRENCY when
// it holds a positive integer; otherwise the cap is left unchanged.
func MaxConcurrencyFromEnv() Option {
	return func(s *Scheduler) {
		if n, err := strconv.Atoi(os.Getenv(EnvMaxConcurrency)); err == nil && n >= 1 {
			s.maxConcurrency = n
		}
	}
}

// WithOutputBudget sets the batch output budget in bytes; n ≤ 0 disables
// spilling.
func WithOutputBudget(n int) Option { return func(s *Scheduler) { s.outputBudget = n } }

// WithSpillDir sets where spilled outputs are saved; the default is
// ply-tool-output under os.TempDir().
func WithSpillDir(dir string) Option { return func(s *Scheduler) { s.spillDir = dir } }

// WithOnUpdate registers f to be called after every state change of every
// call (for a UI or a stream-json writer). It runs synchronously on the
// goroutine that changed the state, possibly several at once, so it must
// be quick and safe for concurrent use.
func WithOnUpdate(f func(*Call)) Option { return func(s *Scheduler) { s.onUpdate = f } }

// WithLiveOutput registers f to supply, per executing call, the sink for
// its live output (a shell command's stdout). f may return nil.
func WithLiveOutput(f func(*Call) tools.Output) Option {
	return func(s *Scheduler) { s.liveOutput = f }
}

// Scheduler runs batches of tool calls, one batch at a time. It is safe for
// concurrent use: a Run that arrives while another runs waits its turn.
type Scheduler struct {
	registry       *tools.Registry
	policy         Policy
	approver       Approver
	approvalHint   string
	maxConcurrency int
	outputBudget   int
	spillDir       string
	onUpdate       func(*Call)
	liveOutput     func(*Call) tools.Output
	hooks          ToolHooks

	schemas schemaCache
	retries retryCounter

	mu     sync.Mutex
	busy   bool
	queue  []chan struct{} // FIFO of waiting Runs; closing hands over the turn
	always map[string]bool // tools approved with OutcomeAllowAlways
}

// New returns a scheduler for the tools of reg.
func New(reg *tools.Registry, opts ...Option) *Scheduler {
	s := &Scheduler{
		registry:       reg,
		policy:         ReadOnlyPolicy{},
		approvalHint:   DefaultApprovalHint,
		maxConcurrency: DefaultMaxConcurrency,
		outputBudget:   DefaultOutputBudget,
		spillDir:       filepath.Join(os.TempDir(), "ply-tool-output"),
		always:         make(map[string]bool),
	}
	for _, o := range opts {
		o(s)
	}
	if s.policy == nil {
		s.policy = ReadOnlyPolicy{}
	}
	return s
}

// Run validates, approves and executes reqs, and returns one terminal Call
// per request, in request order, whatever happened: the caller must send
// every call's Response back to the model.
//
// If another Run is in progress, this one waits for its turn (first come,
// first served). If ctx ends while waiting, Run returns at once with every
// call cancelled. If ctx ends while running, calls not yet started are
// cancelled, and running tools see ctx done. In both cases the error wraps
// ctx's error. When a PostToolBatch hook (WithHooks) stops the batch, the
// error is a *BatchStoppedError. It is nil otherwise: a failing tool is an
// error result, not an error of Run.
func (s *Scheduler) Run(ctx context.Context, reqs []Request) ([]*Call, error) {
	calls := make([]*Call, len(reqs))
	for i, r := range reqs {
		calls[i] = &Call{Request: r, notify: s.onUpdate}
	}
	if !s.acquire(ctx) {
		for _, c := range calls {
			c.cancel("")
		}
		return calls, fmt.Errorf("scheduler: cancelled while queued: %w", ctx.Err())
	}
	defer s.release()

	s.prepare(ctx, calls)
	s.approve(ctx, calls)
	s.execute(ctx, calls)
	// The hook runs before the budget so that its note is counted in it.
	stopped := s.postToolBatch(ctx, calls)
	s.applyBudget(calls)
	if err := ctx.Err(); err != nil && slices.ContainsFunc(calls, func(c *Call) bool { return c.State() == StateCancelled }) {
		return calls, fmt.Errorf("scheduler: batch interrupted: %w", err)
	}
	return calls, stopped
}

// Warm tells the tools the requests name that implement tools.Warmer,
// each once, to start their set-up in the background. It approves and
// runs nothing: the calls still go through Run, which may refuse them.
// The session calls it before a batch's checkpoint, so that the tools'
// set-up overlaps the checkpoint instead of following it.
func (s *Scheduler) Warm(reqs []Request) {
	var warmed []string
	for _, r := range reqs {
		if slices.Contains(warmed, r.Name) {
			continue
		}
		warmed = append(warmed, r.Name)
		if t, ok := s.registry.Lookup(r.Name); ok {
			if w, ok := t.(tools.Warmer); ok {
				w.Warm()
			}
		}
	}
}

// acquire waits for this Run's turn. It reports false, having left the
// queue, when ctx ends first.
func (s *Scheduler) acquire(ctx context.Context) bool {
	s.mu.Lock()
	if !s.busy {
		s.busy = true
		s.mu.Unlock()
		return true
	}
	turn := make(chan struct{})
	s.queue = append(s.queue, turn)
	s.mu.Unlock()

	select {
	case <-turn:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	i := slices.Index(s.queue, turn)
	if i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	}
	s.mu.Unlock()
	if i < 0 {
		// The turn was handed over as ctx ended: pass it on, or the queue
		// would stall forever.
		s.release()
	}
	return false
}

// release ends this Run's turn, handing it to the first waiting Run.
func (s *Scheduler) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		s.busy = false
		return
	}
	next := s.queue[0]
	s.queue = s.queue[1:]
	close(next)
}

// queued returns the number of waiting Runs (for tests).
func (s *Scheduler) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// approve takes every validating call to scheduled or terminal: the
// policy first, then, one call at a time in order, the Approver.
func (s *Scheduler) approve(ctx context.Context, calls []*Call) {
	for _, c := range calls {
		if c.State() != StateValidating {
			continue
		}
		if ctx.Err() != nil {
			c.cancel("")
			continue
		}
		v, reason, confine := s.check(ctx, c)
		hook := c.pre.Verdict
		switch {
		case v == VerdictDeny:
			// A hook's allow never bypasses a policy deny.
			c.fail(ErrorTypeExecutionDenied, withReason(fmt.Sprintf("Execution of tool %q was denied by the permission policy.", c.Name), reason))
		case hook != HookAsk && (v == VerdictAllow || hook == HookAllow || s.alwaysAllowed(c.Name)):
			// A hook's ask holds even in yolo and over an allow-always.
			// Only the policy's own allow confines: set before the call
			// can execute, never changed after. A hook's or an earlier
			// answer's allow runs as approved.
			if v == VerdictAllow {
				c.confine = confine
			}
			c.setState(StateScheduled)
		case precheckFailed(ctx, c):
			// It would fail: no one is asked to approve it, and where no
			// one can be, the model hears the failure, not that approval
			// was missing.
		case s.approver == nil && hook == HookAsk:
			// The approval hint (more permissive modes) would not help.
			c.fail(ErrorTypeExecutionDenied, withReason(fmt.Sprintf(
				"A PreToolUse hook requires the user's approval for tool %q, and no one can approve it in this mode, so it was not run.", c.Name), c.pre.Reason))
		case s.approver == nil:
			c.fail(ErrorTypeExecutionDenied, withReason(fmt.Sprintf(
				"Tool %q needs the user's approval, and no one can approve it in this mode, so it was not run.", c.Name), reason)+" "+s.approvalHint)
		default:
			if s.ask(ctx, c) == OutcomeCancel {
				// The user aborts the whole batch: nothing of it runs,
				// including calls approved before this one.
				for _, other := range calls {
					other.cancel("")
				}
				return
			}
		}
	}
}

// check asks the policy, with the confinement of its allow when it gives
// one.
func (s *Scheduler) check(ctx context.Context, c *Call) (Verdict, string, tools.Confinement) {
	if cp, ok := s.policy.(ConfiningPolicy); ok {
		return cp.CheckConfined(ctx, c)
	}
	v, reason := s.policy.Check(ctx, c)
	return v, reason, tools.Unconfined
}

// ask runs the approval dialogue for one call and applies its outcome.
func (s *Scheduler) ask(ctx context.Context, c *Call) Outcome {
	if !c.setState(StateAwaitingApproval) {
		return OutcomeDeny
	}
	d, err := s.approver.Approve(ctx, c)
	switch {
	case ctx.Err() != nil:
		c.cancel("")
		return OutcomeCancel
	case err != nil:
		c.fail(ErrorTypeExecutionDenied, fmt.Sprintf("Asking the user to approve tool %q failed: %v", c.Name, err))
		return OutcomeDeny
	}
	if (d.Outcome == OutcomeAllowOnce || d.Outcome == OutcomeAllowAlways) && len(d.UpdatedInput) > 0 && !s.rewrite(ctx, c, d) {
		return OutcomeDeny
	}
	switch d.Outcome {
	case OutcomeAllowAlways:
		// A policy that keeps its own rule (a shell prefix, say) decides
		// later calls itself; remembering the whole tool here would widen
		// "always allow git status" to every shell command.
		if a, ok := s.policy.(AlwaysAllower); ok {
			a.AllowAlways(c)
		} else {
			s.mu.Lock()
			s.always[c.Name] = true
			s.mu.Unlock()
		}
		c.setState(StateScheduled)
	case OutcomeAllowOnce:
		c.setState(StateScheduled)
	case OutcomeCancel:
		c.cancel("")
	default:
		c.cancel(withReason("The user denied this tool call, so it was not run. Do not retry it unchanged.", d.Reason))
	}
	return d.Outcome
}

func (s *Scheduler) alwaysAllowed(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always[name]
}

func withReason(msg, reason string) string {
	if reason == "" {
		return msg
	}
	if !strings.HasSuffix(reason, ".") {
		reason += "."
	}
	return msg + " Reason: " + reason
}
