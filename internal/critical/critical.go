// Package critical defers the signals that end a process while it makes a
// change that must not be cut short, such as a restore rewriting the
// user's files: stopped half-way, the tree would be part old, part new.
//
// The process is expected to handle SIGINT and SIGTERM itself, as ply's
// main does: the first cancels its context, which a restore obeys only
// until its first change, and a second ends the process at once, which
// its handler defers by calling Wait. SIGHUP, which ply does not handle,
// would end the process at once: while a section is held it is caught,
// and delivered again when the last section ends.
package critical

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

var (
	mu       sync.Mutex
	held     int
	released chan struct{} // closed when no section is held
	hups     int           // SIGHUPs caught while held
)

func init() {
	released = make(chan struct{})
	close(released)
}

// Enter starts a critical section and returns the function that ends
// it. onSignal, when not nil, is told of each SIGINT, SIGTERM and SIGHUP
// that arrives while the section is held, from another goroutine.
func Enter(onSignal func(os.Signal)) (leave func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	mu.Lock()
	if held++; held == 1 {
		released = make(chan struct{})
	}
	mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sig := range ch {
			if sig == syscall.SIGHUP {
				mu.Lock()
				hups++
				mu.Unlock()
			}
			if onSignal != nil {
				onSignal(sig)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(ch)
			<-done
			mu.Lock()
			held--
			last, hup := held == 0, hups > 0
			if last {
				hups = 0
				close(released)
			}
			mu.Unlock()
			if last && hup {
				raise(syscall.SIGHUP)
			}
		})
	}
}

// Wait returns when no critical section is held.
func Wait() {
	mu.Lock()
	r := released
	mu.Unlock()
	<-r
}
