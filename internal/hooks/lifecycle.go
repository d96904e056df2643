package hooks

import (
	"context"
	"encoding/json"
	"fmt"
)

// PostToolUseFailure runs after a call that executed and failed (in
// place of PostToolUse) and returns text for the model to read with the
// error: the hooks' additionalContext and the reasons of blocking hooks,
// or "".
func (r *Runner) PostToolUseFailure(ctx context.Context, toolName, toolUseID string, input json.RawMessage, errText string, interrupted bool) string {
	text, _ := r.postToolUseFailure(ctx, toolName, toolUseID, input, errText, interrupted)
	return text
}

func (r *Runner) postToolUseFailure(ctx context.Context, toolName, toolUseID string, input json.RawMessage, errText string, interrupted bool) (string, *string) {
	d, _ := r.Run(ctx, PostToolUseFailure, Input{ToolName: toolName, ToolUseID: toolUseID, ToolInput: input,
		Error: errText, IsInterrupt: &interrupted})
	var stop *string
	if d.Stop {
		stop = &d.StopReason
	}
	return join(d.Context, d.BlockReason), stop
}

// PermissionRequest runs when a call needs the user's approval, before
// the user is asked. A non-nil answer decides in the user's place:
// hookSpecificOutput.decision.behavior "allow" or "deny"; exit code 2
// and "decision": "block" deny with their reason; "continue": false
// denies and interrupts. nil means ask the user as usual.
func (r *Runner) PermissionRequest(ctx context.Context, toolName, toolUseID string, input json.RawMessage) (*PermissionAnswer, error) {
	d, err := r.Run(ctx, PermissionRequest, Input{ToolName: toolName, ToolUseID: toolUseID, ToolInput: input})
	if err != nil {
		return nil, err
	}
	if d.Block || d.Stop {
		msg := d.BlockReason
		if d.Permission != nil && d.Permission.Deny {
			msg = join(d.Permission.Message, msg)
		}
		return &PermissionAnswer{Deny: true, Message: join(msg, d.StopReason), Interrupt: d.Stop || (d.Permission != nil && d.Permission.Interrupt)}, nil
	}
	return d.Permission, nil
}

// Notification types ply sends.
const (
	// NotifyPermission: ply waits for the user to approve a call.
	NotifyPermission = "permission_prompt"
	// NotifyIdle: the agent finished and waits for the next prompt.
	NotifyIdle = "idle_prompt"
)

// Notify runs the Notification hooks; they cannot change anything.
func (r *Runner) Notify(ctx context.Context, notificationType, title, message string) {
	d, _ := r.Run(ctx, Notification, Input{NotificationType: notificationType, Title: title, Message: message})
	r.cannotBlock(Notification, d)
}

// SubagentStart runs before a subagent's first request and returns
// context for the subagent (not the main agent) to read with its task.
// agentID is the agent tool call's id, agentType the subagent's name.
func (r *Runner) SubagentStart(ctx context.Context, agentID, agentType string) string {
	d, _ := r.Run(ctx, SubagentStart, Input{AgentID: agentID, AgentType: agentType})
	r.cannotBlock(SubagentStart, d)
	return d.Context
}

// SubagentStop runs when a subagent is about to give its report. block
// means do not stop: reason becomes the subagent's next prompt. active
// is stop_hook_active: the subagent is already working on an earlier
// block's reason. "continue": false and a block without a reason stop it
// anyway, as for Stop.
func (r *Runner) SubagentStop(ctx context.Context, agentID, agentType, lastText string, active bool) (block bool, reason string) {
	d, _ := r.Run(ctx, SubagentStop, Input{AgentID: agentID, AgentType: agentType,
		StopHookActive: &active, LastAssistantMessage: lastText})
	switch {
	case d.Stop || !d.Block:
		return false, ""
	case d.BlockReason == "":
		r.warn(Warning{Event: SubagentStop, Err: fmt.Errorf("%w: a SubagentStop hook blocked without a reason; the subagent stops anyway", ErrIgnored)})
		return false, ""
	}
	return true, d.BlockReason
}

// SubagentStopper returns a stop check for one subagent run, in the
// client's StopHook shape, keeping that run's stop_hook_active.
func (r *Runner) SubagentStopper(agentID, agentType string) func(ctx context.Context, lastText string) (bool, string) {
	if !r.Has(SubagentStop) {
		return nil
	}
	active := false
	return func(ctx context.Context, lastText string) (bool, string) {
		block, reason := r.SubagentStop(ctx, agentID, agentType, lastText, active)
		active = block
		return block, reason
	}
}

// PreCompact runs before the history is summarised; trigger is "manual"
// (/compress) or "auto". block (exit code 2, "decision": "block" or
// "continue": false) means do not compress now, with reason for the user.
func (r *Runner) PreCompact(ctx context.Context, trigger, instructions string) (block bool, reason string) {
	d, _ := r.Run(ctx, PreCompact, Input{Trigger: trigger, CustomInstructions: &instructions})
	if d.Block || d.Stop {
		return true, join(d.BlockReason, d.StopReason)
	}
	return false, ""
}

// PostCompact runs after the history was summarised, with the summary;
// it cannot change anything.
func (r *Runner) PostCompact(ctx context.Context, trigger, summary string) {
	d, _ := r.Run(ctx, PostCompact, Input{Trigger: trigger, CompactSummary: summary})
	r.cannotBlock(PostCompact, d)
}

// AfterCompact runs the SessionStart hooks with source "compact" once the
// history was compacted (trigger "manual" or "auto"), as Claude Code
// does; their additionalContext is returned for the chat to send with
// the summary.
func (r *Runner) AfterCompact(ctx context.Context, _ string) string {
	return r.SessionStart(ctx, "compact")
}
