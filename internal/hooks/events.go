package hooks

import (
	"context"
	"encoding/json"
	"fmt"
)

// Input is the event object a hook reads on stdin, with Claude Code's
// field names. Run fills SessionID, TranscriptPath, CWD, PermissionMode
// (when empty) and HookEventName; the helpers fill the rest.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`

	// PreToolUse, PostToolUse. ToolName is ply's name (run_shell_command,
	// not Bash); ToolInput is the arguments object.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	// PostToolBatch: every call of the batch, in order.
	ToolCalls []BatchCall `json:"tool_calls,omitempty"`
	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// Stop. StopHookActive is true while the model works on the reason of
	// a previous blocking Stop hook, so a hook can avoid blocking forever.
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// SessionStart: "startup", "resume", "clear" or "compact".
	Source string `json:"source,omitempty"`
	// SessionEnd: "clear", "logout", "prompt_input_exit" or "other".
	Reason string `json:"reason,omitempty"`

	// PostToolUseFailure: the error the model reads, and whether the
	// user interrupted the call.
	Error       string `json:"error,omitempty"`
	IsInterrupt *bool  `json:"is_interrupt,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	Title            string `json:"title,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// SubagentStart, SubagentStop (which also sets StopHookActive and
	// LastAssistantMessage). AgentID is the id of the agent tool call.
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`
	// PreCompact, PostCompact: "manual" (/compress) or "auto".
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	CompactSummary     string  `json:"compact_summary,omitempty"`
}

// BatchCall is one call of a PostToolBatch input.
type BatchCall struct {
	ToolName     string          `json:"tool_name"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
}

// PreDecision is what the PreToolUse hooks decided for one call.
type PreDecision struct {
	Verdict Verdict
	// Reason is for the model on a deny, for the user on an ask.
	Reason string
	// UpdatedInput replaces the call's arguments when set.
	UpdatedInput json.RawMessage
}

// PreToolUse asks the hooks whether a validated call may run. Exit code
// 2, "decision": "block" and "continue": false all deny. The error is
// non-nil only when ctx ended first; the call must then not run.
func (r *Runner) PreToolUse(ctx context.Context, toolName, toolUseID string, input json.RawMessage) (PreDecision, error) {
	p, _, err := r.preToolUse(ctx, toolName, toolUseID, input)
	return p, err
}

// preToolUse also reports a "continue": false, which the scheduler
// adapter turns into stopping the batch.
func (r *Runner) preToolUse(ctx context.Context, toolName, toolUseID string, input json.RawMessage) (PreDecision, *string, error) {
	d, err := r.Run(ctx, PreToolUse, Input{ToolName: toolName, ToolUseID: toolUseID, ToolInput: input})
	if err != nil {
		return PreDecision{}, nil, err
	}
	var stop *string
	if d.Stop {
		stop = &d.StopReason
	}
	if d.Block || d.Stop || d.Verdict == VerdictDeny {
		reason := ""
		if d.Verdict == VerdictDeny {
			reason = d.Reason
		}
		return PreDecision{Verdict: VerdictDeny, Reason: join(join(reason, d.BlockReason), d.StopReason)}, stop, nil
	}
	return PreDecision{Verdict: d.Verdict, Reason: d.Reason, UpdatedInput: d.UpdatedInput}, nil, nil
}

// PostToolUse runs after a call executed and returns text for the model
// to read with the call's result: the hooks' additionalContext and the
// reasons of blocking hooks (the tool already ran; Claude Code shows
// them to the model), or "".
func (r *Runner) PostToolUse(ctx context.Context, toolName, toolUseID string, input, response json.RawMessage) string {
	text, _ := r.postToolUse(ctx, toolName, toolUseID, input, response)
	return text
}

func (r *Runner) postToolUse(ctx context.Context, toolName, toolUseID string, input, response json.RawMessage) (string, *string) {
	d, _ := r.Run(ctx, PostToolUse, Input{ToolName: toolName, ToolUseID: toolUseID, ToolInput: input, ToolResponse: response})
	var stop *string
	if d.Stop {
		stop = &d.StopReason
	}
	return join(d.Context, d.BlockReason), stop
}

// PostToolBatch runs once a batch is complete; stop means end the agent's
// work after it (exit code 2, "decision": "block" or "continue": false).
func (r *Runner) PostToolBatch(ctx context.Context, calls []BatchCall) (stop bool, reason string) {
	d, _ := r.Run(ctx, PostToolBatch, Input{ToolCalls: calls})
	if !d.Block && !d.Stop {
		return false, ""
	}
	return true, join(d.BlockReason, d.StopReason)
}

// UserPromptSubmit runs before a prompt the user typed is sent. block
// means do not send it (reason is for the user, not the model); context,
// when not blocked, goes to the model with the prompt.
func (r *Runner) UserPromptSubmit(ctx context.Context, prompt string) (block bool, reason, context string) {
	// A new prompt from the user ends any Stop-hook continuation.
	r.setStopActive(false)
	d, _ := r.Run(ctx, UserPromptSubmit, Input{Prompt: prompt})
	if d.Block || d.Stop {
		return true, join(d.BlockReason, d.StopReason), ""
	}
	return false, "", d.Context
}

// Stop runs when the model ends the interaction. block means do not stop:
// reason becomes the next prompt. "continue": false overrides any block,
// and a block without a reason is reported and ignored, since the model
// would have nothing to work on. Its signature is the client's StopHook.
func (r *Runner) Stop(ctx context.Context, lastText string) (block bool, reason string) {
	if !r.Has(Stop) {
		return false, ""
	}
	active := r.stopActive.Load()
	d, _ := r.Run(ctx, Stop, Input{StopHookActive: &active, LastAssistantMessage: lastText})
	switch {
	case d.Stop || !d.Block:
	case d.BlockReason == "":
		r.warn(Warning{Event: Stop, Err: fmt.Errorf("%w: a Stop hook blocked without a reason; the agent stops anyway", ErrIgnored)})
	default:
		r.setStopActive(true)
		return true, d.BlockReason
	}
	r.setStopActive(false)
	return false, ""
}

// SessionStart runs when a session starts (source: "startup", "resume",
// "clear", "compact") and returns context for the model, or "".
func (r *Runner) SessionStart(ctx context.Context, source string) string {
	d, _ := r.Run(ctx, SessionStart, Input{Source: source})
	r.cannotBlock(SessionStart, d)
	return d.Context
}

// SessionEnd runs when a session ends; it cannot change anything.
func (r *Runner) SessionEnd(ctx context.Context, reason string) {
	d, _ := r.Run(ctx, SessionEnd, Input{Reason: reason})
	r.cannotBlock(SessionEnd, d)
}

// cannotBlock reports a blocking answer to an event that cannot be
// blocked, so the user still sees the hook's reason.
func (r *Runner) cannotBlock(event string, d Decision) {
	if d.Block || d.Stop {
		r.warn(Warning{Event: event, Err: fmt.Errorf("%w: %s cannot be blocked (the hooks said: %s)",
			ErrIgnored, event, join(d.BlockReason, d.StopReason))})
	}
}

func (r *Runner) setStopActive(v bool) {
	if r != nil {
		r.stopActive.Store(v)
	}
}
