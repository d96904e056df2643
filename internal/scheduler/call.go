package scheduler

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/tools"
)

// Request is one tool call as the model asked for it.
type Request struct {
	CallID string
	Name   string
	// Args is the raw argument text the model produced. It may be invalid
	// JSON; "" means {}.
	Args string
	// WasOutputTruncated is set when the model's reply was cut at its
	// output token limit, so the arguments may be incomplete.
	WasOutputTruncated bool
}

// State is where a call is in its life.
type State string

const (
	StateValidating       State = "validating"
	StateAwaitingApproval State = "awaiting_approval"
	StateScheduled        State = "scheduled"
	StateExecuting        State = "executing"
	StateSuccess          State = "success"
	StateError            State = "error"
	StateCancelled        State = "cancelled"
)

// Terminal reports whether s is final: success, error or cancelled.
func (s State) Terminal() bool {
	return s == StateSuccess || s == StateError || s == StateCancelled
}

// Error types the scheduler itself assigns. Tools add their own (see
// tools.Result.ErrorType).
const (
	ErrorTypeExecutionDenied   = "EXECUTION_DENIED"
	ErrorTypeToolNotRegistered = "TOOL_NOT_REGISTERED"
	ErrorTypeOutputTruncated   = "OUTPUT_TRUNCATED"
	ErrorTypeInvalidParams     = "INVALID_TOOL_PARAMS"
	ErrorTypeExecution         = "TOOL_EXECUTION_ERROR" // a tool returned a Go error
	ErrorTypePanic             = "TOOL_PANIC"
)

// CancelledMessage is the output of a call cancelled by the user.
const CancelledMessage = "Tool call was cancelled by the user."

// Call is one tool call and everything known about it. The embedded
// Request, Tool and Params are set before the call is first published and
// never change; the rest changes concurrently and is read through methods.
type Call struct {
	Request
	// Tool is the registered tool, nil when the name is unknown.
	Tool tools.Tool
	// Params is the argument object handed to the tool: the model's text,
	// or {} when it was empty, or what a PreToolUse hook rewrote it to.
	// Nil until validation parsed it. A PermissionRequest hook's rewrite
	// replaces it while the call awaits approval, in the approving
	// goroutine, before the call can execute.
	Params json.RawMessage

	notify func(*Call)
	pre    PreDecision // set with Params, before the call is published
	// confine is set while approving, before the call is scheduled: how
	// the kernel holds a call the policy allowed on the strength of its
	// profile (ConfiningPolicy).
	confine tools.Confinement

	mu        sync.Mutex
	state     State
	response  llm.FunctionResponse
	errorType string
	display   string
	start     time.Time // entered validation (or failed before it)
	execStart time.Time
	end       time.Time
}

// HookDecision returns what the PreToolUse hooks decided for this call
// (zero without hooks). An Approver reads it to show a hook's reason for
// asking.
func (c *Call) HookDecision() PreDecision { return c.pre }

// State returns the current state; "" before the call is first published.
func (c *Call) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Response returns the response for the model; meaningful once terminal.
func (c *Call) Response() llm.FunctionResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.response
}

// ErrorType returns the stable error code of a failed call, or "".
func (c *Call) ErrorType() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errorType
}

// Display returns the tool's short human summary (a diff for edits), or "".
func (c *Call) Display() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.display
}

// Times returns when the call was created, when it started executing
// (zero if it never did) and when it became terminal (zero until then).
func (c *Call) Times() (start, execStart, end time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start, c.execStart, c.end
}

// Duration is the execution time of a call that ran, or zero.
func (c *Call) Duration() time.Duration {
	_, s, e := c.Times()
	if s.IsZero() || e.IsZero() {
		return 0
	}
	return e.Sub(s)
}

// setState moves c to a non-terminal state. Like finish, it ignores any
// transition out of a terminal state, so late or duplicate callbacks from
// concurrent goroutines cannot resurrect a finished call. It reports
// whether the state changed.
func (c *Call) setState(s State) bool {
	c.mu.Lock()
	if c.state.Terminal() {
		c.mu.Unlock()
		return false
	}
	c.state = s
	now := time.Now()
	switch s {
	case StateValidating:
		c.start = now
	case StateExecuting:
		c.execStart = now
	}
	c.mu.Unlock()
	c.publish()
	return true
}

// finish moves c to the terminal state s with its response. The first
// finish wins; later ones are ignored and report false.
func (c *Call) finish(s State, resp llm.FunctionResponse, errorType, display string) bool {
	c.mu.Lock()
	if c.state.Terminal() {
		c.mu.Unlock()
		return false
	}
	now := time.Now()
	if c.start.IsZero() {
		c.start = now
	}
	c.state, c.response, c.errorType, c.display, c.end = s, resp, errorType, display, now
	c.mu.Unlock()
	c.publish()
	return true
}

// finishResult ends c with a tool result: error state when it is an error.
func (c *Call) finishResult(r tools.Result) bool {
	s := StateSuccess
	if r.IsError {
		s = StateError
	}
	return c.finish(s, ToResponse(c.CallID, c.Name, r), r.ErrorType, r.Display)
}

// fail ends c with a scheduler error of the given type.
func (c *Call) fail(errorType, msg string) bool {
	return c.finishResult(tools.Result{IsError: true, ErrorType: errorType, Output: msg})
}

// cancel ends c as cancelled by the user, with msg for the model, or
// CancelledMessage when msg is empty.
func (c *Call) cancel(msg string) bool {
	out := msg
	if out == "" {
		out = CancelledMessage
	}
	return c.finish(StateCancelled, llm.FunctionResponse{ID: c.CallID, Name: c.Name, Output: out, IsError: true}, "", "")
}

// replaceOutput swaps the output of a terminal call (the output budget).
func (c *Call) replaceOutput(out string) {
	c.mu.Lock()
	c.response.Output = out
	c.mu.Unlock()
}

// appendOutput adds text to the output of a terminal call (hook context).
func (c *Call) appendOutput(text string) {
	c.mu.Lock()
	c.response.Output += text
	c.mu.Unlock()
}

func (c *Call) publish() {
	if c.notify != nil {
		c.notify(c)
	}
}
