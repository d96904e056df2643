//go:build !unix

package tools

import "testing"

// failRenameAt does nothing: writes here end with renameFile alone.
func failRenameAt(*testing.T) {}

// forceWalk: the walk is the only way here.
func forceWalk(*testing.T, bool) {}
