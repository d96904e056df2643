// Package sandboxtest holds what tests of confinement share: a loopback
// listener that reports what reached it, and waiting for a command's
// process to say its pid. It is for tests only and touches nothing but
// loopback and the files it is given.
package sandboxtest

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Listener is a TCP listener on 127.0.0.1 that keeps the first bytes of
// the first connection.
type Listener struct {
	Port int
	got  chan string
}

// Listen starts a Listener, closed when the test ends.
func Listen(t testing.TB) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	l := &Listener{Port: ln.Addr().(*net.TCPAddr).Port, got: make(chan string, 1)}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		b := make([]byte, 64)
		n, _ := c.Read(b)
		c.Close()
		l.got <- string(b[:n])
	}()
	return l
}

// Received returns what the first connection sent, or false when nothing
// connected within wait.
func (l *Listener) Received(wait time.Duration) (string, bool) {
	select {
	case s := <-l.got:
		return s, true
	case <-time.After(wait):
		return "", false
	}
}

// WaitFile waits up to timeout for path to exist.
func WaitFile(path string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitPID waits up to timeout for path to hold a pid and a newline, as a
// command writes it with `echo $$ > path`, and returns the pid; 0 when the
// time ran out.
func WaitPID(path string, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}
