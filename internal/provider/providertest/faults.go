package providertest

import (
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// Faults describes what TransportFaults needs to know about a provider.
type Faults struct {
	// Stream starts a stream of a simple request.
	Stream StreamFunc
	// Endpoint is the provider's test endpoint; fault replies are served
	// only to requests it accepts.
	Endpoint Endpoint
	// Start is the opening of a valid stream that yields the text "a"
	// and nothing after it.
	Start string
	// Cut is Start (or more valid events yielding just "a") followed by
	// the first bytes of an event left unfinished.
	Cut string
	// SteadyHead, SteadyPiece and SteadyTail make up a valid stream sent
	// slowly: the head, the piece (yielding "a") five times 30ms apart,
	// then the tail that finishes the reply.
	SteadyHead, SteadyPiece, SteadyTail string
	// ContentType is sent with the slow, steady stream; by default
	// "text/event-stream".
	ContentType string
}

// Result is everything one stream produced, merged.
type Result struct {
	Text, Thought string
	Calls         []llm.FunctionCall
	Finish        []llm.FinishReason
	Usage         *llm.Usage
	Sigs          []string
	Chunks        int
	Err           error
}

// Run starts a stream with a context that times out after 10 seconds and
// collects it with Collect.
func Run(t testing.TB, stream func(context.Context) iter.Seq2[llm.Chunk, error]) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Collect(t, stream(ctx))
}

// Collect drains a stream, failing the test on a second error, a chunk
// after an error, an empty chunk or usage yielded twice.
func Collect(t testing.TB, seq iter.Seq2[llm.Chunk, error]) Result {
	t.Helper()
	var r Result
	for ch, err := range seq {
		if err != nil {
			if r.Err != nil {
				t.Fatalf("second error yielded: %v after %v", err, r.Err)
			}
			r.Err = err
			continue
		}
		if r.Err != nil {
			t.Fatalf("chunk after error: %+v", ch)
		}
		if ch.Empty() {
			t.Errorf("empty chunk yielded")
		}
		r.Chunks++
		r.Text += ch.Text
		r.Thought += ch.Thought
		r.Calls = append(r.Calls, ch.Calls...)
		if ch.FinishReason != "" {
			r.Finish = append(r.Finish, ch.FinishReason)
		}
		if ch.Usage != nil {
			if r.Usage != nil {
				t.Errorf("usage yielded twice")
			}
			r.Usage = ch.Usage
		}
		if ch.ThoughtSignature != "" {
			r.Sigs = append(r.Sigs, ch.ThoughtSignature)
		}
	}
	return r
}

// TransportFaults runs the connection and timeout tests every streaming
// provider must pass: a body cut mid-stream, a reset before the first
// byte, a refused connection, a cancel mid-stream, a consumer that stops
// ranging, an idle stream and a slow but steady one.
func TransportFaults(t *testing.T, f Faults) {
	t.Helper()
	serve := func(t *testing.T, h http.HandlerFunc) string {
		return NewServer(t, f.Endpoint, Reply{Handler: h}).URL
	}
	collect := func(t *testing.T, base string, idle time.Duration) Result {
		t.Helper()
		return Run(t, func(ctx context.Context) iter.Seq2[llm.Chunk, error] { return f.Stream(ctx, base, idle) })
	}

	t.Run("body cut mid-stream", func(t *testing.T) {
		r := collect(t, serve(t, CutHandler(f.Cut, false)), 0)
		if !errors.Is(r.Err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v, want io.ErrUnexpectedEOF", r.Err)
		}
		if r.Text != "a" {
			t.Fatalf("text before the cut = %q", r.Text)
		}
		var ise *llm.InvalidStreamError
		if errors.As(r.Err, &ise) {
			t.Fatalf("a transport error is reported as invalid content: %v", r.Err)
		}
	})

	t.Run("reset before first byte", func(t *testing.T) {
		r := collect(t, serve(t, CutHandler("", true)), 0)
		if r.Err == nil || r.Chunks != 0 {
			t.Fatalf("err = %v after %d chunks", r.Err, r.Chunks)
		}
		// Depending on timing the client sees the reset or a closed
		// connection; both must be recognisable as transport errors.
		if !errors.Is(r.Err, syscall.ECONNRESET) && !errors.Is(r.Err, io.EOF) && !errors.Is(r.Err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v (%T), want a connection reset or EOF", r.Err, errors.Unwrap(r.Err))
		}
	})

	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		r := collect(t, "http://"+addr, 0)
		if !errors.Is(r.Err, syscall.ECONNREFUSED) {
			t.Fatalf("err = %v, want ECONNREFUSED", r.Err)
		}
	})

	t.Run("cancel mid-stream", func(t *testing.T) {
		gone := make(chan struct{})
		base := serve(t, StallHandler(f.Start, gone))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var gotErr error
		var start time.Time
		for ch, err := range f.Stream(ctx, base, 0) {
			if err != nil {
				gotErr = err
				break
			}
			if ch.Text == "a" {
				start = time.Now()
				cancel()
			}
		}
		if !errors.Is(gotErr, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", gotErr)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("cancel took %v", d)
		}
		select {
		case <-gone:
		case <-time.After(5 * time.Second):
			t.Fatal("server never saw the client go away")
		}
	})

	t.Run("break closes body", func(t *testing.T) {
		gone := make(chan struct{})
		base := serve(t, StallHandler(f.Start, gone))
		for range f.Stream(context.Background(), base, 0) {
			break
		}
		select {
		case <-gone:
		case <-time.After(5 * time.Second):
			t.Fatal("body not closed after the consumer stopped")
		}
	})

	t.Run("idle timeout", func(t *testing.T) {
		gone := make(chan struct{})
		r := collect(t, serve(t, StallHandler(f.Start, gone)), 100*time.Millisecond)
		var ne net.Error
		if !errors.As(r.Err, &ne) || !ne.Timeout() {
			t.Fatalf("err = %v, want a net.Error timeout", r.Err)
		}
		if r.Text != "a" {
			t.Fatalf("text = %q", r.Text)
		}
		<-gone
	})

	t.Run("slow but steady stream is not idle", func(t *testing.T) {
		ct := f.ContentType
		if ct == "" {
			ct = "text/event-stream"
		}
		base := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			_, _ = io.WriteString(w, f.SteadyHead)
			// Five pieces a quarter of the idle limit apart: the stream
			// lasts longer than the limit, no gap comes near it, and a
			// loaded machine's stalls fit in the margin.
			for range 5 {
				time.Sleep(250 * time.Millisecond)
				_, _ = io.WriteString(w, f.SteadyPiece)
				w.(http.Flusher).Flush()
			}
			_, _ = io.WriteString(w, f.SteadyTail)
		})
		r := collect(t, base, time.Second)
		if r.Err != nil || r.Text != strings.Repeat("a", 5) {
			t.Fatalf("text %q err %v", r.Text, r.Err)
		}
	})
}
