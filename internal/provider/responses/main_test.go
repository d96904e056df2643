package responses

import (
	"context"
	"iter"
	"net/http"
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
		return r.URL.Path == "/v1/responses" && r.Method == http.MethodPost
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

// sseBody frames event data as OpenAI does, naming each event after its
// type.
var sseBody = providertest.TypedEvents

func textDelta(s string) string {
	return `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":` + quote(s) + `}`
}

func completed(usage string) string {
	if usage == "" {
		usage = "null"
	}
	return `{"type":"response.completed","response":{"id":"resp_1","status":"completed","error":null,"incomplete_details":null,"usage":` + usage + `}}`
}

// stopBody is a complete, minimal text answer.
var stopBody = sseBody(textDelta("ok"), completed(`{"input_tokens":3,"output_tokens":1,"total_tokens":4}`))

// Shared test helpers.
var (
	quote       = providertest.Quote
	wantInvalid = providertest.WantInvalid
	decodeJSON  = providertest.DecodeJSON
	mustJSON    = providertest.MustJSON
)
