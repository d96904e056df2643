package tools

import "context"

type confinedKey struct{}

// WithConfinement returns ctx marking the call being executed as one that
// runs without a human's approval because the permission policy judged
// it to only read. A tool that runs programs (the shell) then runs them
// under the kernel's read-only, no-network profile where the kernel has
// one, so that a wrong judgement fails with "Permission denied" instead of
// doing harm. The scheduler sets it; nothing else should.
func WithConfinement(ctx context.Context) context.Context {
	return context.WithValue(ctx, confinedKey{}, true)
}

// Confined reports whether WithConfinement marked ctx.
func Confined(ctx context.Context) bool {
	c, _ := ctx.Value(confinedKey{}).(bool)
	return c
}
