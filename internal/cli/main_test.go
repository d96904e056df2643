package cli

import (
	"testing"

	"go.uber.org/goleak"
)

// Every in-process run must leave no goroutine behind: streams, tools and
// background shell jobs all end with the run.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// The shared HTTP transport keeps idle keep-alive connections to
		// the fake servers; they are the transport's, not a run's.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}
