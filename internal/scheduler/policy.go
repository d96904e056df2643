package scheduler

import (
	"context"

	"github.com/plyhq/ply/internal/tools"
)

// Verdict is a Policy's answer for one validated call. The zero value is
// VerdictAsk, so a policy that forgets to decide asks rather than allows.
type Verdict int

const (
	VerdictAsk   Verdict = iota // run only if an Approver allows it
	VerdictAllow                // run without asking
	VerdictDeny                 // do not run: EXECUTION_DENIED
)

// Policy decides what may run. The permissions layer implements it; the
// scheduler only provides the two fixed policies below.
type Policy interface {
	// Enabled reports whether the tool named name may be called at all.
	// A disabled tool's calls fail with EXECUTION_DENIED before anything
	// else is checked, even when the tool is not registered (a disabled
	// tool may have been left out of the registry). reason, if any, is
	// shown to the model.
	Enabled(name string) (ok bool, reason string)
	// Check decides for one call whose tool exists and whose arguments
	// passed validation (c.Tool and c.Params are set).
	Check(ctx context.Context, c *Call) (v Verdict, reason string)
}

// ConfiningPolicy is implemented by a Policy whose allow verdicts can
// rest on the kernel's profile rather than on a rule, a mode or a human:
// on a judgement that the call only reads (tools.ConfineReadOnly), or on
// a mode that runs commands unasked inside a workspace sandbox
// (tools.ConfineWorkspace). The scheduler then runs the call with
// tools.WithConfinement at that level, and a tool that runs programs
// confines them to it: a wrong judgement, or a command that reaches
// beyond the workspace, fails instead of doing harm. When implemented,
// CheckConfined is used instead of Check.
type ConfiningPolicy interface {
	Policy
	// CheckConfined is Check plus how the kernel must hold a call it
	// allows (ignored for other verdicts; tools.Unconfined for an allow
	// that rests on a rule or a mode).
	CheckConfined(ctx context.Context, c *Call) (v Verdict, reason string, confine tools.Confinement)
}

// YOLO allows every call without asking.
type YOLO struct{}

func (YOLO) Enabled(string) (bool, string) { return true, "" }
func (YOLO) Check(context.Context, *Call) (Verdict, string) {
	return VerdictAllow, ""
}

// ReadOnlyPolicy allows tools whose kind only reads (tools.Kind.ReadOnly)
// and asks for everything else. It is the scheduler's default.
type ReadOnlyPolicy struct{}

func (ReadOnlyPolicy) Enabled(string) (bool, string) { return true, "" }
func (ReadOnlyPolicy) Check(_ context.Context, c *Call) (Verdict, string) {
	if c.Tool.Kind().ReadOnly() {
		return VerdictAllow, ""
	}
	return VerdictAsk, ""
}

// Outcome is an Approver's answer. The zero value is OutcomeDeny.
type Outcome int

const (
	OutcomeDeny        Outcome = iota // this call does not run: cancelled, with Reason for the model
	OutcomeAllowOnce                  // run this call
	OutcomeAllowAlways                // run this call and, for the scheduler's lifetime, every call of this tool
	OutcomeCancel                     // the user aborts: this call and every pending call of the batch are cancelled
)

// Decision is an Approver's answer for one call.
type Decision struct {
	Outcome Outcome
	Reason  string // for OutcomeDeny: why, in the user's words; may be empty
	// UpdatedInput, on an allow, replaces the call's arguments (a
	// PermissionRequest hook's or an SDK client's rewrite). The scheduler validates it
	// against the tool's schema and checks it against the policy again:
	// a rewrite the policy denies is denied, never run. It is JSON text
	// (a string keeps Decision comparable).
	UpdatedInput string
	// RewrittenBy names who supplied UpdatedInput, for the error when the
	// rewrite is refused ("A PermissionRequest hook"); empty says "The
	// approver".
	RewrittenBy string
}

// Approver asks a human. Approve is called for one call at a time, in call
// order, before any call of the batch executes; it should return promptly
// when ctx is done.
type Approver interface {
	Approve(ctx context.Context, c *Call) (Decision, error)
}

// AlwaysAllower is implemented by a Policy that wants to persist an
// OutcomeAllowAlways (as a permission rule, say). The scheduler remembers
// the answer for its own lifetime regardless.
type AlwaysAllower interface {
	AllowAlways(c *Call)
}
