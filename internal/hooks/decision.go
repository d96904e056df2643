package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Verdict is a PreToolUse permission decision. Stronger verdicts have
// larger values, so combining hooks keeps the maximum: deny beats ask
// beats allow beats none.
type Verdict int

const (
	VerdictNone  Verdict = iota // no opinion
	VerdictAllow                // run without asking (a permission deny still wins)
	VerdictAsk                  // ask the user, even in yolo mode
	VerdictDeny                 // do not run
)

func (v Verdict) String() string {
	switch v {
	case VerdictAllow:
		return "allow"
	case VerdictAsk:
		return "ask"
	case VerdictDeny:
		return "deny"
	}
	return "none"
}

// Decision is the combined answer of the hooks of one event. Which
// fields an event honours is up to its helper (PreToolUse, Stop, ...);
// Run reports them all.
type Decision struct {
	// Verdict is the strongest permissionDecision (or legacy
	// "decision": "approve"); Reason joins the reasons of the hooks that
	// gave it.
	Verdict Verdict
	Reason  string
	// Block is set by exit code 2 (BlockReason: stderr) or by
	// "decision": "block" (BlockReason: "reason"). Any hook blocking
	// blocks.
	Block       bool
	BlockReason string
	// Stop is set by "continue": false, with "stopReason".
	Stop       bool
	StopReason string
	// Context joins every hook's additionalContext, in configuration
	// order; for UserPromptSubmit and SessionStart it includes plain-text
	// stdout too.
	Context string
	// UpdatedInput is the last (in configuration order) updatedInput.
	UpdatedInput json.RawMessage
	// Permission is the strongest PermissionRequest decision (deny beats
	// allow); nil when no hook gave one.
	Permission *PermissionAnswer
	// Messages are the hooks' systemMessage texts, for the user.
	Messages []string
	// Warnings lists the hooks that failed; each counted as no decision.
	Warnings []Warning
}

// merge folds b, a later hook's answer, into d.
func (d *Decision) merge(b Decision) {
	switch {
	case b.Verdict > d.Verdict:
		d.Verdict, d.Reason = b.Verdict, b.Reason
	case b.Verdict == d.Verdict && b.Verdict != VerdictNone:
		d.Reason = join(d.Reason, b.Reason)
	}
	if b.Block {
		d.Block, d.BlockReason = true, join(d.BlockReason, b.BlockReason)
	}
	if b.Stop {
		d.Stop, d.StopReason = true, join(d.StopReason, b.StopReason)
	}
	d.Context = join(d.Context, b.Context)
	if len(b.UpdatedInput) > 0 {
		d.UpdatedInput = b.UpdatedInput
	}
	if p := b.Permission; p != nil {
		switch {
		case d.Permission == nil || (p.Deny && !d.Permission.Deny):
			d.Permission = p
		case p.Deny == d.Permission.Deny:
			merged := *d.Permission
			merged.Message = join(merged.Message, p.Message)
			merged.Interrupt = merged.Interrupt || p.Interrupt
			if len(p.UpdatedInput) > 0 {
				merged.UpdatedInput = p.UpdatedInput
			}
			d.Permission = &merged
		}
	}
	d.Messages = append(d.Messages, b.Messages...)
	d.Warnings = append(d.Warnings, b.Warnings...)
}

// join appends b to a on a new line, skipping empty parts.
func join(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}

// output is the JSON a hook may print, as Claude Code defines it.
type output struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	Specific      *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		// PermissionRequest's answer.
		Decision *struct {
			Behavior     string          `json:"behavior"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Message      string          `json:"message"`
			Interrupt    bool            `json:"interrupt"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// plainTextIsContext lists the events for which stdout that is not JSON
// is context for the model (Claude Code's rule); others ignore it.
var plainTextIsContext = map[string]bool{UserPromptSubmit: true, SessionStart: true}

// parseOutput reads the stdout of a hook that exited 0. Output that starts
// like a JSON object must be one valid decision, or it is an error (and
// the hook gave no decision): half-understood output must not half-apply.
func parseOutput(event string, stdout []byte) (Decision, error) {
	text := bytes.TrimSpace(stdout)
	if len(text) == 0 {
		return Decision{}, nil
	}
	if text[0] != '{' {
		if plainTextIsContext[event] {
			return Decision{Context: string(text)}, nil
		}
		return Decision{}, nil
	}
	var o output
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&o); err != nil {
		return Decision{}, fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() || dec.InputOffset() != int64(len(text)) {
		return Decision{}, errors.New("invalid JSON: text after the JSON object")
	}

	var d Decision
	switch o.Decision {
	case "":
	case "block":
		d.Block, d.BlockReason = true, o.Reason
	case "approve":
		// Claude Code's older spelling of a PreToolUse allow; elsewhere
		// it means "no objection".
		if event == PreToolUse {
			d.Verdict, d.Reason = VerdictAllow, o.Reason
		}
	default:
		return Decision{}, fmt.Errorf("unknown \"decision\" %q (want \"block\" or \"approve\")", o.Decision)
	}
	if o.Continue != nil && !*o.Continue {
		d.Stop, d.StopReason = true, o.StopReason
	}
	if s := o.Specific; s != nil {
		v, err := parseVerdict(s.PermissionDecision)
		if err != nil {
			return Decision{}, err
		}
		if v != VerdictNone {
			d.Verdict, d.Reason = v, s.PermissionDecisionReason
		}
		u, err := inputObject(s.UpdatedInput)
		if err != nil {
			return Decision{}, err
		}
		d.UpdatedInput = u
		d.Context = strings.TrimSpace(s.AdditionalContext)
		if s.Decision != nil && event == PermissionRequest {
			p, err := parsePermission(s.Decision.Behavior, s.Decision.UpdatedInput, s.Decision.Message, s.Decision.Interrupt)
			if err != nil {
				return Decision{}, err
			}
			d.Permission = p
		}
	}
	if o.SystemMessage != "" {
		d.Messages = []string{o.SystemMessage}
	}
	return d, nil
}

func parseVerdict(s string) (Verdict, error) {
	switch s {
	case "":
		return VerdictNone, nil
	case "allow":
		return VerdictAllow, nil
	case "ask":
		return VerdictAsk, nil
	case "deny":
		return VerdictDeny, nil
	}
	return VerdictNone, fmt.Errorf("unknown \"permissionDecision\" %q (want \"allow\", \"deny\" or \"ask\")", s)
}

// inputObject checks an "updatedInput": absent or null is nil, anything
// else must be an object.
func inputObject(raw json.RawMessage) (json.RawMessage, error) {
	u := bytes.TrimSpace(raw)
	if len(u) == 0 || bytes.Equal(u, []byte("null")) {
		return nil, nil
	}
	if u[0] != '{' {
		return nil, errors.New("\"updatedInput\" must be a JSON object")
	}
	return json.RawMessage(u), nil
}

// PermissionAnswer is a PermissionRequest hook's decision, taken instead
// of asking the user.
type PermissionAnswer struct {
	// Deny refuses the call; otherwise it is allowed.
	Deny bool
	// Message tells the model why, on a deny.
	Message string
	// Interrupt, on a deny, also stops the agent.
	Interrupt bool
	// UpdatedInput, on an allow, replaces the call's arguments.
	UpdatedInput json.RawMessage
}

func parsePermission(behavior string, updated json.RawMessage, message string, interrupt bool) (*PermissionAnswer, error) {
	u, err := inputObject(updated)
	if err != nil {
		return nil, err
	}
	switch behavior {
	case "allow":
		return &PermissionAnswer{UpdatedInput: u}, nil
	case "deny":
		return &PermissionAnswer{Deny: true, Message: message, Interrupt: interrupt}, nil
	}
	return nil, fmt.Errorf("unknown \"decision\".\"behavior\" %q (want \"allow\" or \"deny\")", behavior)
}
