//go:build !linux

package repair

import (
	"testing"
	"time"
)

// threadCPU skips where ply's tests have no per-thread CPU clock: the wall
// clock would make the test depend on the machine's load.
func threadCPU(t *testing.T) time.Duration {
	t.Skip("no per-thread CPU clock on this platform")
	return 0
}
