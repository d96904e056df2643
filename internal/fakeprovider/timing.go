package fakeprovider

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// Hooks let a benchmark observe the server from outside the package, for
// example to timestamp the first byte of each request: Listener wraps the
// loopback listener and Handler wraps the scripted handler. Either may be
// nil.
type Hooks struct {
	Listener func(net.Listener) net.Listener
	Handler  func(http.Handler) http.Handler
	// Keep is what the server records of each request, once it has been
	// answered (Requests returns it); nil records all of it. A benchmark
	// whose server runs in ply's own process keeps little, so that the
	// server's heap does not weigh on ply's garbage collection.
	Keep func(Request) Request
}

// NewServerWithHooks is NewServer with the hooks installed before the
// server starts accepting connections.
func NewServerWithHooks(h Hooks, turns ...Turn) *Server {
	s := &Server{turns: turns, pending: len(turns), keep: h.Keep}
	var handler http.Handler = http.HandlerFunc(s.serve)
	if h.Handler != nil {
		handler = h.Handler(handler)
	}
	s.srv = httptest.NewUnstartedServer(handler)
	if h.Listener != nil {
		s.srv.Listener = h.Listener(s.srv.Listener)
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}
