package responses

import (
	"net/http"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
	"github.com/plyhq/ply/internal/provider/transport"
)

func TestHTTPErrors(t *testing.T) {
	openaiErr := func(msg, typ, code string) string {
		return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":` + code + `}}`
	}
	tests := []providertest.HTTPError{
		providertest.Row("429 seconds", 429, map[string]string{"Retry-After": "7"}, openaiErr("Rate limit reached for gpt-5.1", "requests", `"rate_limit_exceeded"`), llm.ErrRateLimit, "Rate limit reached for gpt-5.1", "rate_limit_exceeded", 7*time.Second),
		providertest.Row("429 ms wins", 429, map[string]string{"Retry-After": "2", "retry-after-ms": "1500"}, openaiErr("slow down", "requests", `null`), llm.ErrRateLimit, "slow down", "requests", 1500*time.Millisecond),
		providertest.Row("401", 401, nil, openaiErr("Incorrect API key provided", "invalid_request_error", `"invalid_api_key"`), llm.ErrAuth, "Incorrect API key provided", "invalid_api_key", 0),
		providertest.Row("403", 403, nil, openaiErr("Project does not have access to model", "invalid_request_error", `"model_not_found"`), llm.ErrAuth, "Project does not have access to model", "model_not_found", 0),
		providertest.Row("404", 404, nil, openaiErr("The model `gpt-nope` does not exist", "invalid_request_error", `"model_not_found"`), llm.ErrNotFound, "The model `gpt-nope` does not exist", "model_not_found", 0),
		providertest.Row("400 context", 400, nil, openaiErr("Your input exceeds the context window of this model.", "invalid_request_error", `"context_length_exceeded"`), llm.ErrContextLength, "Your input exceeds the context window of this model.", "context_length_exceeded", 0),
		providertest.Row("400 other", 400, nil, openaiErr("Unsupported parameter: 'temperature'", "invalid_request_error", `"unsupported_parameter"`), llm.ErrBadRequest, "Unsupported parameter: 'temperature'", "unsupported_parameter", 0),
		providertest.Row("500", 500, nil, openaiErr("The server had an error", "server_error", `null`), llm.ErrServer, "The server had an error", "server_error", 0),
		providertest.Row("502 html", 502, nil, "<html><body>Bad gateway</body></html>\n", llm.ErrServer, "<html><body>Bad gateway</body></html>", "", 0),
		providertest.Row("503 overloaded", 503, map[string]string{"Retry-After": "3"}, openaiErr("The engine is currently overloaded, please try again later", "server_error", `null`), llm.ErrOverloaded, "The engine is currently overloaded, please try again later", "server_error", 3*time.Second),
		providertest.Row("503 plain", 503, nil, "", llm.ErrServer, "Service Unavailable", "", 0),
	}
	providertest.HTTPErrors(t, provider, endpoint, streamAt, tests)
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	if got := transport.RetryAfterMillis(h, now); got != 90*time.Second {
		t.Fatalf("date: %v", got)
	}
	for _, v := range []string{now.Add(-time.Minute).Format(http.TimeFormat), "soon", "-3"} {
		h.Set("Retry-After", v)
		if got := transport.RetryAfterMillis(h, now); got != 0 {
			t.Fatalf("%q: %v", v, got)
		}
	}
}

func TestErrorBodyIsCapped(t *testing.T) {
	providertest.ErrorBodyIsCapped(t, endpoint, streamAt)
}
