//go:build unix

package cli

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

const signalChildEnv = "PLY_CLI_TEST_SIGNAL_CHILD"

// Once awaitSignals returns, a SIGINT cancels the context instead of
// killing the process: the signals are watched before any command or
// session runs, although asking for them happens beside start-up.
func TestSignalsAreWatchedOnceAwaited(t *testing.T) {
	if os.Getenv(signalChildEnv) != "" {
		ctx, _ := SignalContext(context.Background())
		awaitSignals(ctx)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		select {
		case <-ctx.Done():
			os.Exit(0)
		case <-time.After(30 * time.Second):
			os.Exit(3)
		}
	}
	for i := 0; i < 20; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalsAreWatchedOnceAwaited$")
		cmd.Env = append(os.Environ(), signalChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: %v (a SIGINT before the signals were watched kills the process)\n%s", i, err, out)
		}
	}
}
