package transport

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// MaxErrorBody bounds how much of an error answer is read: a proxy
	// may answer with a whole HTML page, and nothing past the first few
	// KiB helps anyone.
	MaxErrorBody = 64 << 10
	// MaxMessage bounds the message kept from a body that is not JSON.
	MaxMessage = 1000
)

// ErrorBody reads at most MaxErrorBody bytes of an error answer's body.
// A read error ends the body early and is otherwise ignored: what arrived
// is all there is to report.
func ErrorBody(resp *http.Response) []byte {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	return body
}

// CapText cuts s to MaxMessage bytes, without splitting a character, and
// marks the cut with an ellipsis.
func CapText(s string) string {
	if len(s) <= MaxMessage {
		return s
	}
	s = s[:MaxMessage]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1] // do not cut a character in half
	}
	return s + "…"
}

// RetryAfter reads the standard Retry-After header (seconds, possibly
// fractional, or an HTTP date). It returns 0 when the header is absent,
// unparseable, negative or a date in the past.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	d, _ := ParseRetryAfter(strings.TrimSpace(h.Get("Retry-After")), now)
	return d
}

// ParseRetryAfter parses a Retry-After value. ok reports whether v
// settles the wait: a positive number of seconds, or an HTTP date (one in
// the past settles it at 0). For an empty or unparseable value, or a
// number of seconds that is not positive, ok is false and d is what a
// client that honours only the header waits (0 for a negative number).
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), s > 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}
