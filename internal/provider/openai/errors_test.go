package openai

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
		providertest.Row("429 seconds", 429, map[string]string{"Retry-After": "7"}, openaiErr("Rate limit reached for gpt-4o", "requests", `"rate_limit_exceeded"`), llm.ErrRateLimit, "Rate limit reached for gpt-4o", "rate_limit_exceeded", 7*time.Second),
		providertest.Row("429 ms wins", 429, map[string]string{"Retry-After": "2", "retry-after-ms": "1500"}, openaiErr("slow down", "requests", `null`), llm.ErrRateLimit, "slow down", "requests", 1500*time.Millisecond),
		providertest.Row("429 quota, no header", 429, nil, openaiErr("You exceeded your current quota", "insufficient_quota", `"insufficient_quota"`), llm.ErrRateLimit, "You exceeded your current quota", "insufficient_quota", 0),
		providertest.Row("401", 401, nil, openaiErr("Incorrect API key provided", "invalid_request_error", `"invalid_api_key"`), llm.ErrAuth, "Incorrect API key provided", "invalid_api_key", 0),
		providertest.Row("403", 403, nil, `{"error":"forbidden"}`, llm.ErrAuth, "forbidden", "", 0),
		providertest.Row("404", 404, nil, `{"error":"model \"nope\" not found, try pulling it first"}`, llm.ErrNotFound, `model "nope" not found, try pulling it first`, "", 0),
		providertest.Row("400 context code", 400, nil, openaiErr("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "invalid_request_error", `"context_length_exceeded"`), llm.ErrContextLength, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "context_length_exceeded", 0),
		providertest.Row("400 dashscope", 400, nil, openaiErr("<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]", "invalid_request_error", `"invalid_parameter_error"`), llm.ErrContextLength, "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]", "invalid_parameter_error", 0),
		providertest.Row("400 too many tokens", 400, nil, `{"message":"Too many tokens in the request"}`, llm.ErrContextLength, "Too many tokens in the request", "", 0),
		providertest.Row("400 input too long", 400, nil, `[{"error":{"code":400,"message":"The input is too long for the model","status":"INVALID_ARGUMENT"}}]`, llm.ErrContextLength, "The input is too long for the model", "400", 0),
		providertest.Row("400 other", 400, nil, openaiErr("Invalid schema for function", "invalid_request_error", `null`), llm.ErrBadRequest, "Invalid schema for function", "invalid_request_error", 0),
		providertest.Row("422", 422, nil, `{"detail":"bad"}`, llm.ErrBadRequest, `{"detail":"bad"}`, "", 0),
		providertest.Row("500", 500, nil, openaiErr("The server had an error", "server_error", `null`), llm.ErrServer, "The server had an error", "server_error", 0),
		providertest.Row("502 html", 502, nil, "<html><body>Bad gateway</body></html>\n", llm.ErrServer, "<html><body>Bad gateway</body></html>", "", 0),
		providertest.Row("503 overloaded", 503, map[string]string{"Retry-After": "3"}, openaiErr("The engine is currently overloaded, please try again later", "server_error", `null`), llm.ErrOverloaded, "The engine is currently overloaded, please try again later", "server_error", 3*time.Second),
		providertest.Row("503 plain", 503, nil, "", llm.ErrServer, "Service Unavailable", "", 0),
		providertest.Row("529", 529, nil, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`, llm.ErrOverloaded, "Overloaded", "overloaded_error", 0),
	}
	providertest.HTTPErrors(t, "openai", endpoint, streamAt, tests)
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	if got := transport.RetryAfterMillis(h, now); got != 90*time.Second {
		t.Fatalf("date: %v", got)
	}
	h.Set("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat))
	if got := transport.RetryAfterMillis(h, now); got != 0 {
		t.Fatalf("past date: %v", got)
	}
	h.Set("Retry-After", "soon")
	if got := transport.RetryAfterMillis(h, now); got != 0 {
		t.Fatalf("garbage: %v", got)
	}
	h.Set("Retry-After", "0.5")
	if got := transport.RetryAfterMillis(h, now); got != 500*time.Millisecond {
		t.Fatalf("fraction: %v", got)
	}
}

func TestErrorBodyIsCapped(t *testing.T) {
	providertest.ErrorBodyIsCapped(t, endpoint, streamAt)
}
