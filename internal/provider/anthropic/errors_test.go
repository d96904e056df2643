package anthropic

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

func TestHTTPErrors(t *testing.T) {
	anthErr := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`
	}
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   llm.ErrorKind
		msg    string
		code   string
		retry  time.Duration
	}{
		{"429", 429, map[string]string{"Retry-After": "12"}, anthErr("rate_limit_error", "This request would exceed the rate limit for your organization"), llm.ErrRateLimit, "This request would exceed the rate limit for your organization", "rate_limit_error", 12 * time.Second},
		{"529", 529, map[string]string{"Retry-After": "0.5"}, anthErr("overloaded_error", "Overloaded"), llm.ErrOverloaded, "Overloaded", "overloaded_error", 500 * time.Millisecond},
		{"529 empty body", 529, nil, "", llm.ErrOverloaded, "Overloaded", "", 0},
		{"401", 401, nil, anthErr("authentication_error", "invalid x-api-key"), llm.ErrAuth, "invalid x-api-key", "authentication_error", 0},
		{"403", 403, nil, anthErr("permission_error", "Your API key does not have permission to use the specified resource."), llm.ErrAuth, "Your API key does not have permission to use the specified resource.", "permission_error", 0},
		{"404", 404, nil, anthErr("not_found_error", "model: claude-nope"), llm.ErrNotFound, "model: claude-nope", "not_found_error", 0},
		{"400 prompt too long", 400, nil, anthErr("invalid_request_error", "prompt is too long: 215364 tokens > 200000 maximum"), llm.ErrContextLength, "prompt is too long: 215364 tokens > 200000 maximum", "invalid_request_error", 0},
		{"400 context limit", 400, nil, anthErr("invalid_request_error", "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again"), llm.ErrContextLength, "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again", "invalid_request_error", 0},
		{"400 other", 400, nil, anthErr("invalid_request_error", "messages.1.content.0.tool_use.id: String should match pattern"), llm.ErrBadRequest, "messages.1.content.0.tool_use.id: String should match pattern", "invalid_request_error", 0},
		{"413", 413, nil, anthErr("request_too_large", "Request exceeds the maximum allowed number of bytes."), llm.ErrBadRequest, "Request exceeds the maximum allowed number of bytes.", "request_too_large", 0},
		{"500", 500, nil, anthErr("api_error", "Internal server error"), llm.ErrServer, "Internal server error", "api_error", 0},
		{"502 html", 502, nil, "<html><body>Bad gateway</body></html>\n", llm.ErrServer, "<html><body>Bad gateway</body></html>", "", 0},
		{"503 overloaded", 503, nil, anthErr("overloaded_error", "Overloaded"), llm.ErrOverloaded, "Overloaded", "overloaded_error", 0},
		{"503 plain", 503, nil, "", llm.ErrServer, "Service Unavailable", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Status: tt.status, Header: tt.header, Body: tt.body})
			r := run(t, s.client(Config{}), simpleRequest())
			var ae *llm.APIError
			if !errors.As(r.Err, &ae) {
				t.Fatalf("err = %v, want *llm.APIError", r.Err)
			}
			want := llm.APIError{Provider: "anthropic", Kind: tt.kind, Status: tt.status, Code: tt.code, Message: tt.msg, RetryAfter: tt.retry}
			if *ae != want {
				t.Fatalf("got  %+v\nwant %+v", *ae, want)
			}
			if r.Chunks != 0 {
				t.Fatalf("%d chunks yielded before an HTTP error", r.Chunks)
			}
		})
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	if got := transport.RetryAfter(h, now); got != 90*time.Second {
		t.Fatalf("date: %v", got)
	}
	for _, v := range []string{now.Add(-time.Minute).Format(http.TimeFormat), "soon", "-3"} {
		h.Set("Retry-After", v)
		if got := transport.RetryAfter(h, now); got != 0 {
			t.Fatalf("%q: %v", v, got)
		}
	}
}

func TestErrorBodyIsCapped(t *testing.T) {
	big := strings.Repeat("é", 100<<10) // larger than what is read, and multi-byte
	s := newServer(t, reply{Status: 500, Body: big})
	r := run(t, s.client(Config{}), simpleRequest())
	var ae *llm.APIError
	if !errors.As(r.Err, &ae) {
		t.Fatal(r.Err)
	}
	if len(ae.Message) > transport.MaxMessage+len("…") || !strings.HasSuffix(ae.Message, "…") {
		t.Fatalf("message of %d bytes", len(ae.Message))
	}
	if !strings.HasPrefix(ae.Message, "éé") || strings.ContainsRune(ae.Message, '\uFFFD') {
		t.Fatalf("message cut badly: %q", ae.Message[:10])
	}
}
