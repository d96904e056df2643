package anthropic

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

const provider = "anthropic"

// errorEnvelope is Anthropic's error shape, both as an HTTP body and as
// the data of an "error" event:
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
type errorEnvelope struct {
	Error *errorObject `json:"error"`
}

type errorObject struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// parseError extracts the error type and message from a JSON body. ok is
// false when the body is not a recognisable error.
func parseError(body []byte) (typ, msg string, ok bool) {
	var env errorEnvelope
	if json.Unmarshal(bytes.TrimSpace(body), &env) != nil || env.Error == nil {
		return "", "", false
	}
	return env.Error.Type, env.Error.Message, env.Error.Type != "" || env.Error.Message != ""
}

// statusError reads a non-2xx answer into an *llm.APIError.
func statusError(resp *http.Response) *llm.APIError {
	body := transport.ErrorBody(resp)
	typ, msg, ok := parseError(body)
	if e := transport.NotAPI(provider, "the Anthropic Messages API", resp, body, ok); e != nil {
		return e
	}
	if !ok {
		msg = transport.CapText(string(bytes.TrimSpace(body)))
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
		if resp.StatusCode == transport.StatusOverloaded {
			msg = "Overloaded"
		}
	}
	return &llm.APIError{
		Provider:   provider,
		Kind:       classify(resp.StatusCode, typ, msg),
		Status:     resp.StatusCode,
		Code:       typ,
		Message:    msg,
		RetryAfter: transport.RetryAfter(resp.Header, time.Now()),
	}
}

// eventError converts the data of an "error" event. Such errors come
// after a 200, so they have no status; the type decides the kind.
func eventError(data []byte) *llm.APIError {
	typ, msg, ok := parseError(data)
	if !ok {
		msg = transport.CapText(string(bytes.TrimSpace(data)))
	}
	return &llm.APIError{Provider: provider, Kind: classify(0, typ, msg), Code: typ, Message: msg}
}

// contextPatterns are the ways Anthropic (and proxies in front of it) say
// a request does not fit the model's window, matched case-insensitively.
var contextPatterns = []string{
	"prompt is too long",
	"exceed context limit", // "input length and `max_tokens` exceed context limit"
	"context window",
	"context length",
	"too many tokens",
}

func isContextLength(msg string) bool {
	s := strings.ToLower(msg)
	for _, p := range contextPatterns {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// classify maps a status (0 for an error event) and Anthropic's error type
// and message to an error kind.
func classify(status int, typ, msg string) llm.ErrorKind {
	if kind, ok := transport.StatusKind(status, typ == "overloaded_error", isContextLength(msg)); ok {
		return kind
	}
	switch typ {
	case "overloaded_error":
		return llm.ErrOverloaded
	case "rate_limit_error":
		return llm.ErrRateLimit
	case "api_error", "timeout_error":
		return llm.ErrServer
	case "authentication_error", "permission_error":
		return llm.ErrAuth
	case "not_found_error":
		return llm.ErrNotFound
	case "invalid_request_error", "request_too_large":
		if isContextLength(msg) {
			return llm.ErrContextLength
		}
		return llm.ErrBadRequest
	}
	if isContextLength(msg) {
		return llm.ErrContextLength
	}
	return llm.ErrUnknown
}
