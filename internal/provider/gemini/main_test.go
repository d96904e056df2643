package gemini

import (
	"context"
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

// Shared test helpers.
var (
	itoa        = providertest.Itoa
	quote       = providertest.Quote
	wantInvalid = providertest.WantInvalid
	decodeJSON  = providertest.DecodeJSON
	mustJSON    = providertest.MustJSON
)
