// Package transport owns the HTTP round trip shared by the providers:
// sending a request, the stream idle timeout, transport-error wrapping,
// reading a capped error body (with the request's credentials redacted
// from it), and Retry-After.
//
// It must not know any wire format: building the request body, decoding
// the stream and turning an error body into an *llm.APIError stay with
// each provider, which hands its own status-error function in.
package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// Defaults for a Client's zero fields.
const (
	// DefaultIdleTimeout is how long a response may send nothing, its
	// headers included, before it counts as stalled. Generous, because
	// reasoning models may think for minutes before their first byte.
	DefaultIdleTimeout = 300 * time.Second
	// DefaultConnectTimeout bounds dialing and the TLS handshake.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultMaxResponseBytes caps one response body: far above any real
	// answer, low enough that a runaway stream cannot exhaust memory.
	DefaultMaxResponseBytes = 64 << 20
)

// DefaultHTTPClient is what a Client without HTTP uses: the standard
// transport (proxies from the environment, keep-alives, HTTP/2) with a
// connect and TLS handshake timeout, and no overall timeout, since that
// would bound a whole stream; the idle timeout covers a stalled one.
// Its dials take the connection Warm opened ahead, when there is one.
var DefaultHTTPClient = warmingHTTPClient(defaultWarmer, DefaultConnectTimeout)

// NewHTTPClient returns an HTTP client like DefaultHTTPClient with the
// given connect timeout (and no connection opened ahead).
func NewHTTPClient(connect time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = connect
	return &http.Client{Transport: tr}
}

// warmingHTTPClient is NewHTTPClient whose connections, plain and TLS, w
// makes.
func warmingHTTPClient(w *warmer, connect time.Duration) *http.Client {
	hc := NewHTTPClient(connect)
	tr := hc.Transport.(*http.Transport)
	w.tr = tr
	w.tlsConfig = tr.TLSClientConfig.Clone()
	w.handshakeTimeout = tr.TLSHandshakeTimeout
	w.offerH2 = tr.ForceAttemptHTTP2
	tr.DialContext = w.DialContext
	tr.DialTLSContext = w.DialTLSContext
	return hc
}

// Client sends one provider's requests. The zero value is not usable:
// Provider and StatusError are required.
type Client struct {
	// Provider names the provider in error messages, as in "openai:
	// sending request: ...".
	Provider string
	// HTTP does the round trip; nil means DefaultHTTPClient.
	HTTP *http.Client
	// IdleTimeout aborts a request when no byte arrives for this long,
	// including while waiting for the response headers. Zero means
	// DefaultIdleTimeout; negative, no idle timeout.
	IdleTimeout time.Duration
	// MaxBytes caps the bytes read from one response body; reading past
	// it fails with a *ResponseTooLargeError. Zero means
	// DefaultMaxResponseBytes; negative, no cap.
	MaxBytes int64
	// StatusError turns a non-2xx answer into the provider's error. The
	// body is closed after it returns.
	StatusError func(*http.Response) *llm.APIError
}

// Stream is an answer being read. Close it when done.
type Stream struct {
	// Header is the response's header.
	Header http.Header
	// Body is the response body; reading bytes from it resets the idle
	// timer.
	Body io.Reader

	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   *idleTimer
	resp   *http.Response
	// stopped: the caller stopped taking chunks (Watch); failed: the
	// stream failed (Fail). Either way the rest is not read.
	stopped, failed bool
}

// Post sends payload, the body's pieces in order, to url as a JSON POST asking for an event stream,
// with the headers User-Agent, Content-Type and Accept set and then header
// added over them (so it may override them). The request is cancelled with
// ctx, or when the idle timeout passes.
//
// A non-nil error is final (see Stream.Fail): the context's error, an
// *IdleTimeoutError, the provider's *llm.APIError for a non-2xx answer,
// or a transport error wrapped with %w.
func (c *Client) Post(ctx context.Context, url string, header http.Header, payload ...[]byte) (*Stream, error) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	s := &Stream{ctx: ctx, cancel: cancel}
	idle := c.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	s.idle = newIdleTimer(c.Provider, idle, cancel)
	resp, err := c.send(reqCtx, url, header, payload)
	if err != nil {
		err = s.Fail(err)
		s.idle.stop()
		cancel(nil)
		return nil, err
	}
	s.resp = resp
	s.Header = resp.Header
	s.Body = resp.Body
	if s.idle != nil {
		s.Body = &idleReader{r: s.Body, t: s.idle}
	}
	limit := c.MaxBytes
	if limit == 0 {
		limit = DefaultMaxResponseBytes
	}
	if limit > 0 {
		s.Body = &cappedReader{r: s.Body, left: limit, err: &ResponseTooLargeError{Provider: c.Provider, Limit: limit}}
	}
	return s, nil
}

func (c *Client) send(ctx context.Context, url string, header http.Header, payload [][]byte) (*http.Response, error) {
	var body io.Reader
	if len(payload) == 1 {
		body = bytes.NewReader(payload[0])
	} else {
		body = pieces(payload)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Provider, err)
	}
	if len(payload) != 1 {
		// A body in pieces (a request assembled from cached parts) is
		// written piece by piece, never copied into one buffer.
		n := 0
		for _, p := range payload {
			n += len(p)
		}
		hreq.ContentLength = int64(n)
		hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(pieces(payload)), nil }
		if n == 0 {
			hreq.Body = http.NoBody
		}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	hreq.Header.Set("User-Agent", "ply")
	for k, v := range header {
		hreq.Header[k] = v
	}
	hc := c.HTTP
	if hc == nil {
		hc = DefaultHTTPClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("%s: sending request: %w", c.Provider, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		resp.Body = credentialFreeBody(resp.Body, hreq.Header)
		return nil, c.StatusError(resp)
	}
	return resp, nil
}

// Close reads what is left of the body of a stream that was read to its
// last event (a decoder stops there, before the body's end), for at most
// drainWait and drainBytes, closes it, stops the idle timer and releases the request.
// A body read to its end leaves its connection to the next request; one
// closed before is closed with its connection, and the next request pays
// a new connection's handshakes.
func (s *Stream) Close() {
	s.idle.stop()
	if !s.stopped && !s.failed && s.ctx.Err() == nil {
		stop := time.AfterFunc(drainWait, func() { s.cancel(errDrained) })
		io.CopyN(io.Discard, s.resp.Body, drainBytes)
		stop.Stop()
	}
	s.resp.Body.Close()
	s.cancel(nil)
}

// Watch returns yield, noting when its caller stops taking chunks: a
// stream given up before its end is closed at once, its connection with
// it, rather than read on (Close).
func (s *Stream) Watch(yield func(llm.Chunk, error) bool) func(llm.Chunk, error) bool {
	return func(c llm.Chunk, err error) bool {
		if !yield(c, err) {
			s.stopped = true
			return false
		}
		return true
	}
}

// What Close reads of a body past the decoder's end: the end of a stream
// that ended comes at once; one that goes on is not worth reading.
const (
	drainWait  = time.Second
	drainBytes = 64 << 10
)

var errDrained = errors.New("the stream's rest was not read")

// Fail gives a failed send or read its final form. The caller's own
// cancellation wins over whatever it caused and is reported as the
// context's error; an *llm.APIError or *llm.InvalidStreamError is kept as
// it is; otherwise an idle abort becomes an *IdleTimeoutError; anything
// else is returned as it is.
func (s *Stream) Fail(err error) error {
	s.failed = true
	var ae *llm.APIError
	var ise *llm.InvalidStreamError
	switch {
	case s.ctx.Err() != nil:
		return s.ctx.Err()
	case errors.As(err, &ae), errors.As(err, &ise):
		return err
	case s.idle != nil && s.idle.fired.Load():
		return &IdleTimeoutError{Provider: s.idle.provider, After: s.idle.d}
	}
	return err
}

// IdleTimeoutError reports a stream that went silent for longer than the
// idle timeout. It is a net.Error with Timeout true, so the chat layer's
// transport-retry whitelist treats it like a socket timeout.
type IdleTimeoutError struct {
	// Provider names the provider in the message.
	Provider string
	After    time.Duration
}

func (e *IdleTimeoutError) Error() string {
	return fmt.Sprintf("%s: no data received for %v", e.Provider, e.After)
}
func (e *IdleTimeoutError) Timeout() bool   { return true }
func (e *IdleTimeoutError) Temporary() bool { return true }

// ResponseTooLargeError reports a response body longer than the cap on
// one response (Client.MaxBytes). It is not retried: the same request
// would most likely produce the same runaway answer.
type ResponseTooLargeError struct {
	Provider string
	Limit    int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("%s: the response is larger than the cap of %d bytes on one response (setting model.maxResponseBytes)", e.Provider, e.Limit)
}

// cappedReader fails with err once more than left bytes were asked for
// and available.
type cappedReader struct {
	r    io.Reader
	left int64
	err  error
}

func (r *cappedReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var b [1]byte
		n, err := r.r.Read(b[:])
		if n > 0 {
			return 0, r.err
		}
		return 0, err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	r.left -= int64(n)
	return n, err
}

// idleError is the cause the request is cancelled with when it goes idle.
type idleError struct{ provider string }

func (e idleError) Error() string { return e.provider + ": stream idle timeout" }

// idleTimer cancels the request when it is not reset in time. A nil
// *idleTimer is a disabled one.
type idleTimer struct {
	provider string
	d        time.Duration
	t        *time.Timer
	fired    atomic.Bool
}

func newIdleTimer(provider string, d time.Duration, cancel context.CancelCauseFunc) *idleTimer {
	if d <= 0 {
		return nil
	}
	it := &idleTimer{provider: provider, d: d}
	it.t = time.AfterFunc(d, func() {
		it.fired.Store(true)
		cancel(idleError{it.provider})
	})
	return it
}

func (it *idleTimer) reset() {
	if it != nil && !it.fired.Load() {
		it.t.Reset(it.d)
	}
}

func (it *idleTimer) stop() {
	if it != nil {
		it.t.Stop()
	}
}

// idleReader resets the idle timer whenever bytes arrive.
type idleReader struct {
	r io.Reader
	t *idleTimer
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.t.reset()
	}
	return n, err
}

// pieces reads the payload's pieces one after another.
func pieces(payload [][]byte) io.Reader {
	b := net.Buffers(slices.Clone(payload))
	return &b
}
