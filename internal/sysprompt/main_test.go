package sysprompt

import (
	"os"
	"testing"

	"github.com/plyhq/ply/internal/sandbox"
)

// TestMain lets this binary act as the sandbox helper, which the
// snapshot's confined git starts in a folder that is not trusted.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
