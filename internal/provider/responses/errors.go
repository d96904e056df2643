package responses

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

// The openai package's error helpers are unexported, and the two packages
// must not depend on each other's internals, so this is a small mapping of
// its own, following the same rules.

const (
	provider = "openai-responses"
)

// errorObject is OpenAI's error shape, the value of "error" in an HTTP
// body, of response.error in response.failed, and (flattened) of an error
// event.
type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // string, number or null
}

// code returns the code, or the type when there is no code.
func (e *errorObject) code() string {
	if c := rawString(e.Code); c != "" {
		return c
	}
	return e.Type
}

// rawString renders a JSON string or number as text; null gives "".
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// statusError reads a non-2xx answer into an *llm.APIError.
func statusError(resp *http.Response) *llm.APIError {
	body := transport.ErrorBody(resp)
	var env struct {
		Error *errorObject `json:"error"`
	}
	var msg, code string
	ok := json.Unmarshal(bytes.TrimSpace(body), &env) == nil && env.Error != nil
	if e := transport.NotAPI(provider, "the OpenAI Responses API", resp, body, ok); e != nil {
		return e
	}
	if ok {
		msg, code = env.Error.Message, env.Error.code()
	} else {
		msg = transport.CapText(string(bytes.TrimSpace(body)))
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &llm.APIError{
		Provider:   provider,
		Kind:       classify(resp.StatusCode, msg, code),
		Status:     resp.StatusCode,
		Code:       code,
		Message:    msg,
		RetryAfter: transport.RetryAfterMillis(resp.Header, time.Now()),
	}
}

// streamError converts an error reported inside the stream. Such errors
// have no status; the code and message decide the kind.
func streamError(eo *errorObject, raw []byte) *llm.APIError {
	msg, code := "", ""
	if eo != nil {
		msg, code = eo.Message, eo.code()
	}
	if msg == "" && code == "" {
		msg = transport.CapText(string(bytes.TrimSpace(raw)))
	}
	return &llm.APIError{Provider: provider, Kind: classify(0, msg, code), Code: code, Message: msg}
}

// contextPatterns are the ways servers say a request does not fit the
// model's window, matched case-insensitively against code and message.
var contextPatterns = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"too many tokens",
	"input is too long",
	"prompt is too long",
}

func isContextLength(msg, code string) bool {
	s := strings.ToLower(code + " " + msg)
	for _, p := range contextPatterns {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// classify maps a status (0 for an in-stream error) and the server's words
// to an error kind.
func classify(status int, msg, code string) llm.ErrorKind {
	lower := strings.ToLower(code + " " + msg)
	overloaded := strings.Contains(lower, "overloaded") || strings.Contains(lower, "slow_down")
	if kind, ok := transport.StatusKind(status, overloaded, isContextLength(msg, code)); ok {
		return kind
	}
	switch {
	case isContextLength(msg, code):
		return llm.ErrContextLength
	case strings.Contains(lower, "rate_limit") || strings.Contains(lower, "rate limit") ||
		strings.Contains(lower, "quota"):
		return llm.ErrRateLimit
	case overloaded:
		return llm.ErrOverloaded
	case strings.Contains(lower, "server_error") || strings.Contains(lower, "internal"):
		return llm.ErrServer
	case strings.Contains(lower, "invalid_prompt") || strings.Contains(lower, "invalid_request"):
		return llm.ErrBadRequest
	}
	return llm.ErrUnknown
}
