package transport

import (
	"net/http"

	"github.com/plyhq/ply/internal/llm"
)

// StatusOverloaded is the status some providers answer when they shed load.
const StatusOverloaded = 529

// StatusKind maps an HTTP error status to the kind the chat layer retries
// on. overloaded says the provider's words mark a 503 as overload, and
// contextLength says a 4xx is the refusal of a request too long for the
// model. It reports false for status 0 (an error sent inside the stream),
// whose kind each provider reads from its own error shapes.
func StatusKind(status int, overloaded, contextLength bool) (llm.ErrorKind, bool) {
	switch {
	case status == 0:
		return llm.ErrUnknown, false
	case status == http.StatusTooManyRequests:
		return llm.ErrRateLimit, true
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.ErrAuth, true
	case status == http.StatusNotFound:
		return llm.ErrNotFound, true
	case status == StatusOverloaded || (status == http.StatusServiceUnavailable && overloaded):
		return llm.ErrOverloaded, true
	case status >= 500 && status < 600:
		return llm.ErrServer, true
	case status >= 400 && status < 500:
		if contextLength {
			return llm.ErrContextLength, true
		}
		return llm.ErrBadRequest, true
	}
	return llm.ErrUnknown, true
}
