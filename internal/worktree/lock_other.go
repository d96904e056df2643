//go:build !unix

package worktree

// lockFile is a no-op where flock is not available: worktrees created at
// once by several processes may then see git fail, and say so.
func lockFile(string) (func(), error) { return func() {}, nil }
