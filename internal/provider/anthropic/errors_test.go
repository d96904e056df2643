package anthropic

import (
	"net/http"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
	"github.com/plyhq/ply/internal/provider/transport"
)

func TestHTTPErrors(t *testing.T) {
	anthErr := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`
	}
	tests := []providertest.HTTPError{
		providertest.Row("429", 429, map[string]string{"Retry-After": "12"}, anthErr("rate_limit_error", "This request would exceed the rate limit for your organization"), llm.ErrRateLimit, "This request would exceed the rate limit for your organization", "rate_limit_error", 12*time.Second),
		providertest.Row("529", 529, map[string]string{"Retry-After": "0.5"}, anthErr("overloaded_error", "Overloaded"), llm.ErrOverloaded, "Overloaded", "overloaded_error", 500*time.Millisecond),
		providertest.Row("529 empty body", 529, nil, "", llm.ErrOverloaded, "Overloaded", "", 0),
		providertest.Row("401", 401, nil, anthErr("authentication_error", "invalid x-api-key"), llm.ErrAuth, "invalid x-api-key", "authentication_error", 0),
		providertest.Row("403", 403, nil, anthErr("permission_error", "Your API key does not have permission to use the specified resource."), llm.ErrAuth, "Your API key does not have permission to use the specified resource.", "permission_error", 0),
		providertest.Row("404", 404, nil, anthErr("not_found_error", "model: claude-nope"), llm.ErrNotFound, "model: claude-nope", "not_found_error", 0),
		providertest.Row("400 prompt too long", 400, nil, anthErr("invalid_request_error", "prompt is too long: 215364 tokens > 200000 maximum"), llm.ErrContextLength, "prompt is too long: 215364 tokens > 200000 maximum", "invalid_request_error", 0),
		providertest.Row("400 context limit", 400, nil, anthErr("invalid_request_error", "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again"), llm.ErrContextLength, "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again", "invalid_request_error", 0),
		providertest.Row("400 other", 400, nil, anthErr("invalid_request_error", "messages.1.content.0.tool_use.id: String should match pattern"), llm.ErrBadRequest, "messages.1.content.0.tool_use.id: String should match pattern", "invalid_request_error", 0),
		providertest.Row("413", 413, nil, anthErr("request_too_large", "Request exceeds the maximum allowed number of bytes."), llm.ErrBadRequest, "Request exceeds the maximum allowed number of bytes.", "request_too_large", 0),
		providertest.Row("500", 500, nil, anthErr("api_error", "Internal server error"), llm.ErrServer, "Internal server error", "api_error", 0),
		providertest.Row("502 html", 502, nil, "<html><body>Bad gateway</body></html>\n", llm.ErrServer, "<html><body>Bad gateway</body></html>", "", 0),
		providertest.Row("503 overloaded", 503, nil, anthErr("overloaded_error", "Overloaded"), llm.ErrOverloaded, "Overloaded", "overloaded_error", 0),
		providertest.Row("503 plain", 503, nil, "", llm.ErrServer, "Service Unavailable", "", 0),
	}
	providertest.HTTPErrors(t, "anthropic", endpoint, streamAt, tests)
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
	providertest.ErrorBodyIsCapped(t, endpoint, streamAt)
}
