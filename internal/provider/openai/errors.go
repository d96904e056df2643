package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

const (
	provider = "openai"
)

// errorBody is the error shape of OpenAI and of most compatible servers.
// Some (Ollama) put a plain string in "error"; some (vLLM's older
// versions) put the message at the top level.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // string, number or null
}

// parseErrorJSON extracts message and code from a JSON error body. ok is
// false when the body is not a recognisable error.
func parseErrorJSON(body []byte) (message, code string, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		// Gemini's compatibility endpoint wraps the error in an array.
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 {
			return "", "", false
		}
		body = arr[0]
	}
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil {
		return "", "", false
	}
	if len(eb.Error) > 0 && string(eb.Error) != "null" {
		var s string
		if json.Unmarshal(eb.Error, &s) == nil {
			return s, "", true
		}
		var eo errorObject
		if json.Unmarshal(eb.Error, &eo) == nil {
			code = rawString(eo.Code)
			if code == "" {
				code = eo.Type
			}
			return eo.Message, code, true
		}
	}
	if eb.Message != "" {
		return eb.Message, "", true
	}
	return "", "", false
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
	msg, code, ok := parseErrorJSON(body)
	if e := transport.NotAPI(provider, "an OpenAI-compatible API", resp, body, ok); e != nil {
		return e
	}
	if !ok {
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

// streamError converts an error object sent inside the stream. Such errors
// have no status; the code and message decide the kind.
func streamError(raw json.RawMessage) *llm.APIError {
	msg, code, _ := parseErrorJSON(append(append([]byte(`{"error":`), raw...), '}'))
	if msg == "" {
		msg = transport.CapText(string(raw))
	}
	return &llm.APIError{Provider: provider, Kind: classify(0, msg, code), Code: code, Message: msg}
}

// contextPatterns are the ways servers say a request does not fit the
// model's window. They are matched case-insensitively against the code and
// the message.
var contextPatterns = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"too many tokens",
	"input is too long",
	"prompt is too long",
	"range of input length", // DashScope
	"reduce the length of the messages",
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
	overloaded := strings.Contains(lower, "overloaded")
	if kind, ok := transport.StatusKind(status, overloaded, isContextLength(msg, code)); ok {
		return kind
	}
	// In-stream errors.
	switch {
	case isContextLength(msg, code):
		return llm.ErrContextLength
	case strings.Contains(lower, "rate_limit") || strings.Contains(lower, "rate limit") ||
		strings.Contains(lower, "insufficient_quota") || strings.Contains(lower, "quota"):
		return llm.ErrRateLimit
	case overloaded:
		return llm.ErrOverloaded
	case strings.Contains(lower, "server_error") || strings.Contains(lower, "internal"):
		return llm.ErrServer
	}
	return llm.ErrUnknown
}
