package tools

import "context"

// Confinement is how the kernel holds a call that runs without a human's
// approval, as the permission policy judged it. The zero value,
// Unconfined, adds nothing to what the tool does anyway (a session's
// --sandbox still confines every command).
type Confinement int

const (
	// Unconfined: a human, a rule or a mode the user chose approved the
	// call as it is.
	Unconfined Confinement = iota
	// ConfineReadOnly: the call was judged to only read; a tool that runs
	// programs runs them under the kernel's read-only, no-network profile
	// (sandbox.ReadOnlyPolicy), so that a wrong judgement fails with
	// "Permission denied" instead of doing harm.
	ConfineReadOnly
	// ConfineWorkspace: the call runs unasked because the kernel, not a
	// judgement of the call, keeps it to the workspace: a tool that runs
	// programs runs them under sandbox.WorkspacePolicy (writes to the
	// workspace, a private tmp and the sandbox's caches; reads confined;
	// no network).
	ConfineWorkspace
)

// String names the level as the tool results and logs do.
func (c Confinement) String() string {
	switch c {
	case Unconfined:
		return "unconfined"
	case ConfineReadOnly:
		return "read-only"
	case ConfineWorkspace:
		return "workspace-write"
	}
	return "unknown"
}

type confinedKey struct{}

// WithConfinement returns ctx marking the call being executed as held by
// the kernel at level c. The scheduler sets it; nothing else should.
func WithConfinement(ctx context.Context, c Confinement) context.Context {
	return context.WithValue(ctx, confinedKey{}, c)
}

// ConfinementOf returns the level WithConfinement marked ctx with;
// Unconfined when none.
func ConfinementOf(ctx context.Context) Confinement {
	c, _ := ctx.Value(confinedKey{}).(Confinement)
	return c
}

// Confined reports whether WithConfinement marked ctx with any level but
// Unconfined: the call runs unasked on the strength of the kernel's
// profile.
func Confined(ctx context.Context) bool { return ConfinementOf(ctx) != Unconfined }
