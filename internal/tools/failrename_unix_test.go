//go:build unix

package tools

import (
	"errors"
	"testing"
)

// failRenameAt makes the final renameat of a write beneath a root fail
// for the rest of the test.
func failRenameAt(t *testing.T) {
	origAt := renameAt
	renameAt = func(int, string, int, string) error { return errors.New("simulated rename failure") }
	t.Cleanup(func() { renameAt = origAt })
}
