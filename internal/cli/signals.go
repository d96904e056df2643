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
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
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
