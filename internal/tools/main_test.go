package tools

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/sandbox"
)

// TestMain fails the package when a goroutine outlives its tests: the
// shell tool's process watchers and the search workers must all end. It
// also lets this binary act as the sandbox helper, which a sandboxed
// shell command starts.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if c := os.Getenv(shellDeathEnv); c != "" {
		playPly(c)
	}
	goleak.VerifyTestMain(m)
}
