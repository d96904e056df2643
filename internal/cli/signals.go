package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/plyhq/ply/internal/critical"
	"github.com/plyhq/ply/internal/exitcode"
)

// SignalContext returns a context that the first SIGINT or SIGTERM
// cancels, so that the running stream or tool ends and the run ends with
// a result; a second one exits at once with exitcode.Cancelled, once no
// critical section (a restore rewriting files) is held.
//
// Asking the runtime for signals starts two threads, half a millisecond
// here: that happens beside start-up, and every command and session waits
// for it (awaitSignals) before it does anything a signal must find
// handled.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	watched := make(chan struct{})
	ctx, cancel := context.WithCancel(context.WithValue(parent, signalsKey{}, watched))
	go func() {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		close(watched)
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
		cancel()
		<-sigs
		critical.Wait()
		fmt.Fprintln(os.Stderr, "ply: interrupted")
		os.Exit(exitcode.Cancelled)
	}()
	return ctx, cancel
}

// signalsKey holds, in a SignalContext, a channel closed once its signals
// are watched.
type signalsKey struct{}

// awaitSignals returns once the signals of ctx's SignalContext are
// watched; at once for a context without one.
func awaitSignals(ctx context.Context) {
	if watched, ok := ctx.Value(signalsKey{}).(chan struct{}); ok {
		<-watched
	}
}
