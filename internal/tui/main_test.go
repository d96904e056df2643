package tui_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// The e2e test's fake server keeps keep-alive connections.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
		// The binary the terminal tests share goes with the test binary.
		goleak.Cleanup(func(code int) {
			ply.Remove()
			os.Exit(code)
		}),
	)
}
