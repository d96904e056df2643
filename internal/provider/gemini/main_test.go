package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

func TestMain(m *testing.M) {
	providertest.Main(m)
}

// reply is one scripted HTTP answer.
type reply = providertest.Reply

// server answers each request with the next reply and records requests.
type server struct {
	*providertest.Server
}

// endpoint accepts the requests this client should make.
var endpoint = providertest.Endpoint{
	Accept: func(r *http.Request) bool {
		return strings.HasPrefix(r.URL.Path, "/v1beta/models/") && strings.HasSuffix(r.URL.Path, ":streamGenerateContent") &&
			r.URL.Query().Get("alt") == "sse" && r.Method == http.MethodPost
	},
	ContentType: "text/event-stream",
}

func newServer(t testing.TB, replies ...reply) *server {
	return &server{providertest.NewServer(t, endpoint, replies...)}
}

func (s *server) client(cfg Config) *Client {
	cfg.BaseURL = s.URL + "/"
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	return New(cfg)
}

// result is everything one stream produced, merged.
type result = providertest.Result

func run(t testing.TB, c *Client, req *llm.Request) result {
	t.Helper()
	return providertest.Run(t, func(ctx context.Context) iter.Seq2[llm.Chunk, error] { return c.Stream(ctx, req) })
}

// streamAt streams simpleRequest from the server at baseURL.
func streamAt(ctx context.Context, baseURL string, idle time.Duration) iter.Seq2[llm.Chunk, error] {
	return New(Config{BaseURL: baseURL + "/", Model: "test-model", StreamIdleTimeout: idle}).Stream(ctx, simpleRequest())
}

func simpleRequest() *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}
}

// sseBody frames responses as Gemini does: a data line per event, CRLF
// line ends, no [DONE].
func sseBody(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\r\n\r\n")
	}
	return b.String()
}

// stopBody is a complete, minimal text answer.
var stopBody = sseBody(`{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP","index":0}]}`)

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func wantInvalid(t testing.TB, err error, reason string) {
	t.Helper()
	var ise *llm.InvalidStreamError
	if !errors.As(err, &ise) {
		t.Fatalf("err = %v, want InvalidStreamError", err)
	}
	if !strings.Contains(ise.Reason, reason) {
		t.Fatalf("reason = %q, want it to contain %q", ise.Reason, reason)
	}
}

func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return v
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
