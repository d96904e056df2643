package gemini

import (
	"net/http"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

func TestHTTPErrors(t *testing.T) {
	gErr := func(code int, status, msg, details string) string {
		if details == "" {
			details = "[]"
		}
		return `{"error":{"code":` + itoa(code) + `,"message":` + quote(msg) + `,"status":"` + status + `","details":` + details + `}}`
	}
	const keyInvalid = `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]`
	const retryInfo = `[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]`
	tests := []providertest.HTTPError{
		providertest.Row("429 retry info", 429, nil, gErr(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota", retryInfo), llm.ErrRateLimit, "You exceeded your current quota", "RESOURCE_EXHAUSTED", 37*time.Second),
		providertest.Row("429 header wins", 429, map[string]string{"Retry-After": "3"}, gErr(429, "RESOURCE_EXHAUSTED", "quota", retryInfo), llm.ErrRateLimit, "quota", "RESOURCE_EXHAUSTED", 3*time.Second),
		providertest.Row("400 context", 400, nil, gErr(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", ""), llm.ErrContextLength, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "INVALID_ARGUMENT", 0),
		providertest.Row("400 bad key", 400, nil, gErr(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", keyInvalid), llm.ErrAuth, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", 0),
		providertest.Row("400 other", 400, nil, gErr(400, "INVALID_ARGUMENT", `Invalid JSON payload received. Unknown name "additionalProperties"`, ""), llm.ErrBadRequest, `Invalid JSON payload received. Unknown name "additionalProperties"`, "INVALID_ARGUMENT", 0),
		providertest.Row("400 in an array", 400, nil, "["+gErr(400, "FAILED_PRECONDITION", "User location is not supported for the API use.", "")+"]", llm.ErrBadRequest, "User location is not supported for the API use.", "FAILED_PRECONDITION", 0),
		providertest.Row("401", 401, nil, gErr(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", ""), llm.ErrAuth, "Request had invalid authentication credentials.", "UNAUTHENTICATED", 0),
		providertest.Row("403", 403, nil, gErr(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.", ""), llm.ErrAuth, "Method doesn't allow unregistered callers.", "PERMISSION_DENIED", 0),
		providertest.Row("404", 404, nil, gErr(404, "NOT_FOUND", "models/gemini-nope is not found for API version v1beta", ""), llm.ErrNotFound, "models/gemini-nope is not found for API version v1beta", "NOT_FOUND", 0),
		providertest.Row("500", 500, nil, gErr(500, "INTERNAL", "An internal error has occurred.", ""), llm.ErrServer, "An internal error has occurred.", "INTERNAL", 0),
		providertest.Row("503", 503, nil, gErr(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", ""), llm.ErrOverloaded, "The model is overloaded. Please try again later.", "UNAVAILABLE", 0),
		providertest.Row("504", 504, nil, gErr(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", ""), llm.ErrServer, "Deadline expired before operation could complete.", "DEADLINE_EXCEEDED", 0),
		providertest.Row("502 html", 502, nil, "<html><body>Bad gateway</body></html>\n", llm.ErrServer, "<html><body>Bad gateway</body></html>", "", 0),
		providertest.Row("503 empty", 503, nil, "", llm.ErrOverloaded, "Service Unavailable", "", 0),
	}
	providertest.HTTPErrors(t, "gemini", endpoint, streamAt, tests)
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	if got := retryAfter(h, nil, now); got != 90*time.Second {
		t.Fatalf("date: %v", got)
	}
	for _, v := range []string{now.Add(-time.Minute).Format(http.TimeFormat), "soon", "-3"} {
		h.Set("Retry-After", v)
		if got := retryAfter(h, nil, now); got != 0 {
			t.Fatalf("%q: %v", v, got)
		}
	}
}

func TestErrorBodyIsCapped(t *testing.T) {
	providertest.ErrorBodyIsCapped(t, endpoint, streamAt)
}
