package ide_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Connections, listening streams and diff waits all end with their
// test: none outlives it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
