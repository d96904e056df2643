package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/redact"
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

// RetryAfter reads the standard Retry-After header: seconds, possibly
// fractional, or an HTTP date. It returns 0 when the header is absent or
// unparseable, a negative number, or a date in the past.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// RetryAfterMillis reads OpenAI's retry-after-ms header (milliseconds,
// possibly fractional) when it holds a usable value, and the standard
// Retry-After otherwise: the finer one wins.
func RetryAfterMillis(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	return RetryAfter(h, now)
}

// credentialFreeBody returns the first MaxErrorBody bytes of an error
// answer's body with the credentials the request carried replaced by
// "[redacted]": a server that echoes a wrong key ("Incorrect API key
// provided: sk-...") must not put it into a message ply shows, logs or
// saves.
func credentialFreeBody(body io.Reader, sent http.Header) io.ReadCloser {
	var secrets []string
	for name, vs := range sent {
		if !credentialHeader(name) {
			continue
		}
		for _, v := range vs {
			secrets = append(secrets, v)
			if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer sk-..."
				secrets = append(secrets, strings.TrimSpace(tok))
			}
		}
	}
	b, _ := io.ReadAll(io.LimitReader(body, MaxErrorBody))
	return io.NopCloser(strings.NewReader(redact.New(secrets, minCredential).String(string(b))))
}

// minCredential is the shortest header value treated as a credential.
const minCredential = 8

// credentialHeader reports whether a request header carries a credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "auth") || strings.Contains(n, "key") || strings.Contains(n, "token") || strings.Contains(n, "secret")
}

// NotAPI returns the error for an answer that shows the URL is not the
// API at all: status 404, 405 or 501 with a body that is not the API's
// JSON (jsonOK false), such as a web server's error page. api names what
// was expected ("an OpenAI-compatible API"). It returns nil for any other
// answer, which the provider classifies itself.
func NotAPI(provider, api string, resp *http.Response, body []byte, jsonOK bool) *llm.APIError {
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
	default:
		return nil
	}
	if jsonOK {
		return nil
	}
	what := "a reply that is not JSON"
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		what = "an empty reply"
	case trimmed[0] == '<' || strings.Contains(resp.Header.Get("Content-Type"), "html"):
		what = "an HTML page"
	}
	url := "the base URL"
	if resp.Request != nil && resp.Request.URL != nil {
		u := *resp.Request.URL
		u.RawQuery, u.User = "", nil // a key may ride in the query (Gemini)
		url = u.String()
	}
	return &llm.APIError{
		Provider: provider, Kind: llm.ErrNotAPI, Status: resp.StatusCode,
		Message: fmt.Sprintf("%s does not look like %s: it answered with %s; check the base URL", url, api, what),
	}
}
