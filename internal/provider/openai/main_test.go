package openai

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
		return r.URL.Path == "/v1/chat/completions"
	},
	ContentType: "text/event-stream; charset=utf-8",
}

func newServer(t testing.TB, replies ...reply) *server {
	return &server{providertest.NewServer(t, endpoint, replies...)}
}

func (s *server) client(cfg Config) *Client {
	cfg.BaseURL = s.URL + "/v1/"
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
	return New(Config{BaseURL: baseURL + "/v1/", Model: "test-model", StreamIdleTimeout: idle}).Stream(ctx, simpleRequest())
}

func simpleRequest() *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}
}

// sseBody frames JSON chunks as OpenAI does, ending with [DONE].
func sseBody(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// Shared test helpers.
var (
	wantInvalid = providertest.WantInvalid
)
