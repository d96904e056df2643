package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

// checkEncode checks c's streamed bodies against the whole encoding.
func checkEncode(t *testing.T, c *Client, reqs []*llm.Request) {
	t.Helper()
	providertest.CheckEncode(t, reqs, func(r *llm.Request) (any, error) { return c.buildRequest(r) }, c.encode)
}

func TestEncodeIsTheWholeEncoding(t *testing.T) {
	for _, cfg := range []Config{{}, {SendReasoning: true, MaxTokensField: "max_completion_tokens"}} {
		checkEncode(t, New(cfg), providertest.SessionRequests(nil, 40))
	}
	// No system prompt, no tools.
	checkEncode(t, New(Config{Model: "x"}), []*llm.Request{simpleRequest(), {Messages: []llm.Message{{Role: llm.RoleUser}}}, {}})
}

// The replies of the recorded streams, as history, encode the same way.
func TestEncodeRecordedReplies(t *testing.T) {
	var replies []llm.Message
	for _, name := range []string{"openai-chat-gpt-4o-multi-tool-streaming.yaml"} {
		c := providertest.LoadCassette(t, name)
		for _, in := range c.Interactions {
			s := newServer(t, reply{Status: in.Response.Code,
				Header: map[string]string{"Content-Type": in.Response.Headers["Content-Type"][0]}, Body: in.Response.Body})
			replies = append(replies, providertest.ReplyOf(run(t, s.client(Config{}), simpleRequest())))
		}
	}
	checkEncode(t, New(Config{}), providertest.SessionRequests(replies, len(replies)+3))
}

// BenchmarkEncode encodes the request of round 500 of a session: whole
// (json.Marshal of the wire request, as every request was encoded before
// the cache) and as Stream does, with the encodings of the round before
// it cached: the requests of rounds 499 and 500 in turn, so that each
// differs from the one before by a round.
func BenchmarkEncode(b *testing.B) {
	reqs := providertest.SessionRequests(nil, 501)
	prev, req := reqs[499], reqs[500]
	// The tools of a session are a dozen or more, with schemas of a
	// kilobyte or so, sent unchanged with every request.
	var tools []llm.ToolDecl
	for i := range 16 {
		props := ""
		for k := range 12 {
			props += fmt.Sprintf(`,"arg_%d":{"type":"string","description":"Argument %d of the tool: what it is, how it is read, and its default."}`, k, k)
		}
		tools = append(tools, llm.ToolDecl{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("What the tool does. ", 20),
			Parameters: json.RawMessage(`{"type":"object","properties":{` + props[1:] + `},"required":["arg_0"]}`)})
	}
	prev, req = withTools(prev, tools), withTools(req, tools)
	b.Run("whole", func(b *testing.B) {
		c := New(Config{})
		b.ReportAllocs()
		for b.Loop() {
			wire, err := c.buildRequest(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(wire); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := New(Config{})
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			r := req
			if n++; n%2 == 0 {
				r = prev
			}
			if _, err := c.encode(r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(req.Messages)), "entries")
	})
}

func withTools(r *llm.Request, tools []llm.ToolDecl) *llm.Request {
	c := *r
	c.Tools = tools
	return &c
}
