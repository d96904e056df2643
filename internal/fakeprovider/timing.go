package fakeprovider

import (
	"bytes"
	"encoding/json"
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
	// Lean leaves Request.Body nil: the server decodes of each request
	// only the model and the messages, which is all that answering needs,
	// rather than the whole body a second time as a map. For a benchmark
	// whose requests grow large, where that map is most of the server's
	// allocations, and collecting them takes CPU the ply process beside
	// it would have.
	Lean bool
}

// isObject reports whether raw is one valid JSON object.
func isObject(raw []byte) bool {
	return json.Valid(raw) && bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{"))
}

// NewServerWithHooks is NewServer with the hooks installed before the
// server starts accepting connections.
func NewServerWithHooks(h Hooks, turns ...Turn) *Server {
	s := &Server{turns: turns, pending: len(turns), keep: h.Keep, lean: h.Lean}
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
