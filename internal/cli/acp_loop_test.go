package cli

import (
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/schedule"
)

// FuzzLoopCommand feeds /loop arbitrary arguments: it never panics, and
// it starts a schedule exactly when it says so.
func FuzzLoopCommand(f *testing.F) {
	for _, seed := range []string{"", "5m check the build", "stop loop-1", "stop", "1s", "0s x", "8d x", "1d  spaced  prompt ", "soon x", "-1m x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		in := inbox.New()
		s := schedule.New(in)
		defer s.Close()
		out, err := loopCommand(s, args)
		started := len(s.List())
		if err != nil && started != 0 {
			t.Fatalf("%q failed (%v) yet started a schedule", args, err)
		}
		if strings.HasPrefix(out, "loop-") != (started == 1) {
			t.Fatalf("%q answered %q with %d schedules", args, out, started)
		}
	})
}
