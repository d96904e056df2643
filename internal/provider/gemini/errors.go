package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

const (
	provider = "gemini"
)

// errorObject is Google's error shape, {"error": {...}}, sometimes wrapped
// in a one-element array. Status is the gRPC code name, which says more
// than the HTTP status (a bad API key is a 400).
type errorObject struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Status  string        `json:"status"`
	Details []errorDetail `json:"details"`
}

type errorDetail struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"` // google.rpc.RetryInfo, such as "37s"
	Reason     string `json:"reason"`     // google.rpc.ErrorInfo, such as "API_KEY_INVALID"
}

// parseError extracts the error object from a JSON body, or from the raw
// value of an "error" field when inner is set.
func parseError(body []byte, inner bool) (*errorObject, bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 {
			return nil, false
		}
		body = arr[0]
	}
	if inner {
		var eo errorObject
		if json.Unmarshal(body, &eo) != nil {
			return nil, false
		}
		return &eo, true
	}
	var env struct {
		Error *errorObject `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil {
		return nil, false
	}
	return env.Error, true
}

// statusError reads a non-2xx answer into an *llm.APIError.
func statusError(resp *http.Response) *llm.APIError {
	body := transport.ErrorBody(resp)
	ae := &llm.APIError{Provider: provider, Status: resp.StatusCode}
	eo, ok := parseError(body, false)
	if e := transport.NotAPI(provider, "the Gemini API", resp, body, ok); e != nil {
		return e
	}
	if ok {
		ae.Message, ae.Code = eo.Message, eo.Status
	} else {
		ae.Message = transport.CapText(string(bytes.TrimSpace(body)))
	}
	if ae.Message == "" {
		ae.Message = http.StatusText(resp.StatusCode)
	}
	ae.Kind = classify(resp.StatusCode, eo, ae.Message)
	ae.RetryAfter = retryAfter(resp.Header, eo, time.Now())
	return ae
}

// streamError converts an error object sent inside the stream, after a
// 200. Its code, when present, is the HTTP status it stands for.
func streamError(raw json.RawMessage) *llm.APIError {
	eo, ok := parseError(raw, true)
	if !ok {
		return &llm.APIError{Provider: provider, Message: transport.CapText(string(raw))}
	}
	msg := eo.Message
	if msg == "" {
		msg = transport.CapText(string(raw))
	}
	return &llm.APIError{
		Provider:   provider,
		Kind:       classify(eo.Code, eo, msg),
		Code:       eo.Status,
		Message:    msg,
		RetryAfter: retryAfter(nil, eo, time.Now()),
	}
}

// contextPatterns are the ways Gemini says a request does not fit the
// model's window, matched case-insensitively. The usual one is "The input
// token count (1200000) exceeds the maximum number of tokens allowed
// (1048576)."
var contextPatterns = []string{
	"exceeds the maximum number of tokens",
	"input token count",
	"context window",
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

// classify maps an HTTP status (0 when unknown), the error object (nil
// when the body was not one) and the message to an error kind.
func classify(status int, eo *errorObject, msg string) llm.ErrorKind {
	var grpc, reason string
	if eo != nil {
		grpc = eo.Status
		for _, d := range eo.Details {
			if d.Reason != "" {
				reason = d.Reason
			}
		}
	}
	switch {
	case status == http.StatusTooManyRequests || grpc == "RESOURCE_EXHAUSTED":
		return llm.ErrRateLimit
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		grpc == "UNAUTHENTICATED" || grpc == "PERMISSION_DENIED" ||
		// A bad key is a 400 INVALID_ARGUMENT; only the reason tells.
		reason == "API_KEY_INVALID" || strings.Contains(msg, "API key not valid"):
		return llm.ErrAuth
	case status == http.StatusNotFound || grpc == "NOT_FOUND":
		return llm.ErrNotFound
	case status == http.StatusServiceUnavailable || grpc == "UNAVAILABLE":
		// "The model is overloaded. Please try again later."
		return llm.ErrOverloaded
	case status >= 500 && status < 600 || grpc == "INTERNAL" || grpc == "DEADLINE_EXCEEDED":
		return llm.ErrServer
	case isContextLength(msg):
		return llm.ErrContextLength
	case status >= 400 && status < 500 || grpc == "INVALID_ARGUMENT" || grpc == "FAILED_PRECONDITION":
		return llm.ErrBadRequest
	}
	return llm.ErrUnknown
}

// retryAfter reads how long the server asks us to wait: the Retry-After
// header when present, else the RetryInfo detail Gemini puts in quota
// errors ("retryDelay": "37s"). h may be nil.
func retryAfter(h http.Header, eo *errorObject, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if s > 0 {
				return time.Duration(s * float64(time.Second))
			}
			return 0
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 {
				return d
			}
			return 0
		}
	}
	if eo == nil {
		return 0
	}
	for _, d := range eo.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") || d.RetryDelay == "" {
			continue
		}
		if dur, err := time.ParseDuration(d.RetryDelay); err == nil && dur > 0 {
			return dur
		}
	}
	return 0
}
