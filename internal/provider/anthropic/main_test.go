package anthropic

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
		return r.URL.Path == "/v1/messages" && r.Method == http.MethodPost
	},
	ContentType: "text/event-stream; charset=utf-8",
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

// sseBody frames event data as Anthropic does, naming each event after
// its type.
var sseBody = providertest.TypedEvents

const (
	evStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":20,"output_tokens":1}}}`
	evStop  = `{"type":"message_stop"}`
)

func textBlock3(i int, text string) []string {
	idx := itoa(i)
	return []string{
		`{"type":"content_block_start","index":` + idx + `,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":` + idx + `,"delta":{"type":"text_delta","text":` + quote(text) + `}}`,
		`{"type":"content_block_stop","index":` + idx + `}`,
	}
}

func messageDelta(stop string, out int) string {
	return `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":{"output_tokens":` + itoa(out) + `}}`
}

// stopBody is a complete, minimal text answer.
var stopBody = sseBody(append(append([]string{evStart}, textBlock3(0, "ok")...), messageDelta("end_turn", 3), evStop)...)

// Shared test helpers.
var (
	itoa        = providertest.Itoa
	quote       = providertest.Quote
	wantInvalid = providertest.WantInvalid
	decodeJSON  = providertest.DecodeJSON
	mustJSON    = providertest.MustJSON
)
