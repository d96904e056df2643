package tools

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives its tests: the
// shell tool's process watchers and the search workers must all end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
