package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// RetryPolicy sets a budget and a backoff per failure class. A zero field
// takes its default; a negative attempt count means no retry.
type RetryPolicy struct {
	// RateLimitAttempts is how many times a rate-limited (429, quota) or
	// overloaded request is retried. Retry-After is honoured, capped at
	// RateLimitMaxDelay.
	RateLimitAttempts  int
	RateLimitBaseDelay time.Duration
	RateLimitMaxDelay  time.Duration
	// TransportAttempts is how many times a dropped connection is
	// replayed, and only while nothing was yielded yet.
	TransportAttempts  int
	TransportBaseDelay time.Duration
	// ContentAttempts is how many times an unusable stream (no choices,
	// empty, no finish reason, tool arguments that are not JSON) is
	// retried. It is the only class that consumes this budget.
	ContentAttempts  int
	ContentBaseDelay time.Duration
	// ServerAttempts is how many times a 5xx answer is retried.
	ServerAttempts  int
	ServerBaseDelay time.Duration
}

// DefaultRetryPolicy is what a user gets without settings.
var DefaultRetryPolicy = RetryPolicy{
	RateLimitAttempts:  10,
	RateLimitBaseDelay: 5 * time.Second,
	RateLimitMaxDelay:  5 * time.Minute,
	TransportAttempts:  2,
	TransportBaseDelay: time.Second,
	ContentAttempts:    4,
	ContentBaseDelay:   2 * time.Second,
	ServerAttempts:     3,
	ServerBaseDelay:    2 * time.Second,
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy
	pick := func(v *int, def int) {
		if *v == 0 {
			*v = def
		} else if *v < 0 {
			*v = 0
		}
	}
	pickD := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	pick(&p.RateLimitAttempts, d.RateLimitAttempts)
	pick(&p.TransportAttempts, d.TransportAttempts)
	pick(&p.ContentAttempts, d.ContentAttempts)
	pick(&p.ServerAttempts, d.ServerAttempts)
	pickD(&p.RateLimitBaseDelay, d.RateLimitBaseDelay)
	pickD(&p.RateLimitMaxDelay, d.RateLimitMaxDelay)
	pickD(&p.TransportBaseDelay, d.TransportBaseDelay)
	pickD(&p.ContentBaseDelay, d.ContentBaseDelay)
	pickD(&p.ServerBaseDelay, d.ServerBaseDelay)
	return p
}

// Scale multiplies every delay by f; tests and settings use it to run the
// policy in milliseconds.
func (p RetryPolicy) Scale(f float64) RetryPolicy {
	p = p.withDefaults()
	s := func(d *time.Duration) { *d = time.Duration(float64(*d) * f) }
	s(&p.RateLimitBaseDelay)
	s(&p.RateLimitMaxDelay)
	s(&p.TransportBaseDelay)
	s(&p.ContentBaseDelay)
	s(&p.ServerBaseDelay)
	return p
}

// failureClass is what the retry loop branches on.
type failureClass int

const (
	classFatal failureClass = iota
	classRateLimit
	classTransport
	classContextLength
	classInvalidStream
	classServer
)

func (c failureClass) String() string {
	switch c {
	case classRateLimit:
		return "rate limit"
	case classTransport:
		return "connection"
	case classContextLength:
		return "context length"
	case classInvalidStream:
		return "invalid response"
	case classServer:
		return "server error"
	}
	return "error"
}

// key is the class as StreamEvent.Class names it.
func (c failureClass) key() string {
	switch c {
	case classRateLimit:
		return RetryRateLimit
	case classTransport:
		return RetryTransport
	case classContextLength:
		return RetryContextLength
	case classInvalidStream:
		return RetryInvalidStream
	case classServer:
		return RetryServer
	}
	return "error"
}

// The classes of a retry (StreamEvent.Class).
const (
	RetryRateLimit     = "rate_limit"
	RetryTransport     = "transport"
	RetryContextLength = "context_length"
	RetryInvalidStream = "invalid_stream"
	RetryServer        = "server"
	RetryOutputLimit   = "output_limit"
)

// classify sorts err into a failure class. Transport errors follow the
// design's whitelist: resets, broken pipes, timeouts, a connection closed
// before the answer and a body cut short.
func classify(err error) failureClass {
	var api *llm.APIError
	if errors.As(err, &api) {
		switch api.Kind {
		case llm.ErrRateLimit, llm.ErrOverloaded:
			return classRateLimit
		case llm.ErrContextLength:
			return classContextLength
		case llm.ErrServer:
			return classServer
		}
		return classFatal
	}
	var inv *llm.InvalidStreamError
	if errors.As(err, &inv) {
		return classInvalidStream
	}
	if isTransport(err) {
		return classTransport
	}
	return classFatal
}

func isTransport(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	// io.EOF is a connection closed before the first response byte, the
	// usual sign of a keep-alive connection the server or a proxy dropped;
	// the retry loop replays only while nothing was yielded.
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ETIMEDOUT) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// FailedError is the error a caller sees when the request failed for good.
type FailedError struct {
	What     string // the failure class in words
	Attempts int    // requests made
	Err      error
}

func (e *FailedError) Error() string {
	if e.Attempts <= 1 {
		return fmt.Sprintf("model request failed: %v", e.Err)
	}
	return fmt.Sprintf("model request failed after %d attempts (%s): %v", e.Attempts, e.What, e.Err)
}

func (e *FailedError) Unwrap() error { return e.Err }

// backoff returns base·n with ±20% jitter, capped at max when max > 0.
func backoff(base, max time.Duration, n int, exponential bool) time.Duration {
	d := base * time.Duration(n)
	if exponential {
		d = base << min(n-1, 20)
	}
	if max > 0 && d > max {
		d = max
	}
	j := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * j)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
