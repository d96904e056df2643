package main

import (
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// exchange is the server's view of one request.
type exchange struct {
	firstByte time.Time // the request's first byte arrived
	done      time.Time // the scripted handler returned: the response is sent
}

// recorder timestamps every request the fake server gets. The first byte
// is seen by the connection, the end by the handler; the two meet through
// the request's remote address, which names its connection.
type recorder struct {
	mu        sync.Mutex
	conns     map[string]*timedConn
	exchanges []exchange
}

func newRecorder() *recorder { return &recorder{conns: map[string]*timedConn{}} }

// server starts the fake provider with the recorder's hooks.
func (rec *recorder) server(turns []fp.Turn) *fp.Server {
	return fp.NewServerWithHooks(fp.Hooks{
		Listener: func(l net.Listener) net.Listener { return &timedListener{Listener: l, rec: rec} },
		Handler: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.mu.Lock()
				c := rec.conns[r.RemoteAddr]
				rec.mu.Unlock()
				h.ServeHTTP(w, r)
				// Set before net/http writes the last chunk, so the client
				// cannot have sent its next request on this connection yet.
				done := time.Now()
				ex := exchange{firstByte: done, done: done}
				if c != nil {
					ex.firstByte = c.takeFirstByte()
				}
				rec.mu.Lock()
				rec.exchanges = append(rec.exchanges, ex)
				rec.mu.Unlock()
			})
		},
	}, turns...)
}

// wait returns the exchanges, in arrival order, once n have been recorded
// or the timeout has passed. ply may exit as soon as it has read [DONE],
// before the handler that sent it has returned, so the last exchange can
// be recorded just after the process is gone.
func (rec *recorder) wait(n int, timeout time.Duration) []exchange {
	deadline := time.Now().Add(timeout)
	for {
		rec.mu.Lock()
		got := len(rec.exchanges)
		rec.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := slices.Clone(rec.exchanges)
	slices.SortFunc(out, func(a, b exchange) int { return a.firstByte.Compare(b.firstByte) })
	return out
}

type timedListener struct {
	net.Listener
	rec *recorder
}

func (l *timedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &timedConn{Conn: c}
	l.rec.mu.Lock()
	l.rec.conns[c.RemoteAddr().String()] = tc
	l.rec.mu.Unlock()
	return tc, nil
}

// timedConn notes when the first byte of each request arrives: the first
// read that returns data while no request is in progress on it.
type timedConn struct {
	net.Conn
	mu        sync.Mutex
	busy      bool
	firstByte time.Time
}

func (c *timedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		now := time.Now()
		c.mu.Lock()
		if !c.busy {
			c.busy, c.firstByte = true, now
		}
		c.mu.Unlock()
	}
	return n, err
}

// takeFirstByte returns the current request's first-byte time and marks
// the connection idle, ready for the next request.
func (c *timedConn) takeFirstByte() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	return c.firstByte
}
