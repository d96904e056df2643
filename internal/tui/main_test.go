package tui_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ply-tui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	plyDir = dir
	goleak.VerifyTestMain(m,
		// The e2e test's fake server keeps keep-alive connections.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
		// The binary the terminal tests share goes with the test binary.
		goleak.Cleanup(func(code int) {
			_ = os.RemoveAll(dir)
			os.Exit(code)
		}),
	)
}
