// Package gitstate reads a git repository's state without running git.
package gitstate

import (
	"context"
	"errors"
)

// maxEntries caps the index entries read.
const maxEntries = 5000

// State is the repository's state.
type State struct {
	Status  []string
	Commits []string
}

// UnsupportedError says the repository uses something Read does not read.
type UnsupportedError struct{ Reason string }

func (e *UnsupportedError) Error() string { return "unsupported: " + e.Reason }

// Read reads the state of the repository holding dir.
func Read(ctx context.Context, dir string, env []string) (*State, error) {
	return nil, errors.New("not implemented")
}
