package transport

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// readUntilDone reads an event stream up to its [DONE] line and stops
// there, as the providers' decoders do.
func readUntilDone(t *testing.T, s *Stream) {
	t.Helper()
	sc := bufio.NewScanner(s.Body)
	for sc.Scan() {
		if sc.Text() == "data: [DONE]" {
			return
		}
	}
	t.Fatalf("no [DONE]: %v", sc.Err())
}

// A stream read to its last event leaves its connection for the next
// request: a new connection a round would mean a TLS handshake a round
// against a real provider.
func TestStreamReadToItsEndKeepsTheConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		// Chunked, flushed event by event: the end of the body (the last
		// chunk) comes after [DONE].
		for _, ev := range []string{`data: {"x":1}`, `data: {"x":2}`, `data: [DONE]`} {
			io.WriteString(w, ev+"\n\n")
			w.(http.Flusher).Flush()
		}
		// The body's end follows the last event a moment later, as it
		// may over a network: a client that closes at [DONE] has not
		// seen it yet.
		time.Sleep(20 * time.Millisecond)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	hc := NewHTTPClient(5 * time.Second)
	defer hc.CloseIdleConnections()
	c := &Client{Provider: "p", HTTP: hc, StatusError: func(*http.Response) *llm.APIError { return &llm.APIError{} }}
	for i := 0; i < 3; i++ {
		s, err := c.Post(context.Background(), srv.URL, nil, []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		readUntilDone(t, s)
		s.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("three requests opened %d connections, want 1", n)
	}
}

// A server that never ends its body after the last event does not hold
// Close up: the connection is dropped after a short wait.
func TestCloseDoesNotWaitForAnEndThatNeverComes(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release) // before the server's Close, which waits for the handler
	c := &Client{Provider: "p", HTTP: NewHTTPClient(5 * time.Second), StatusError: func(*http.Response) *llm.APIError { return &llm.APIError{} }}
	s, err := c.Post(context.Background(), srv.URL, nil, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	readUntilDone(t, s)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for a body that never ends")
	}
}
