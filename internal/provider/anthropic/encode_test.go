package anthropic

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

// checkEncode compares, request after request with one client (so that
// its cache of encoded messages is used), the body Stream sends with
// json.Marshal of the wire request built whole.
func checkEncode(t *testing.T, c *Client, reqs []*llm.Request) {
	t.Helper()
	for i, req := range reqs {
		wire, err := c.buildRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(wire)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.encode(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(got, nil); !bytes.Equal(got, want) {
			t.Fatalf("request %d: body differs from the whole encoding:\n got %s\nwant %s", i, got, want)
		}
	}
}

func TestEncodeIsTheWholeEncoding(t *testing.T) {
	for _, cfg := range []Config{{Model: "m"}, {Model: "m", ThinkingBudget: 2048}} {
		checkEncode(t, New(cfg), providertest.SessionRequests(nil, 40))
	}
	checkEncode(t, New(Config{Model: "x"}), []*llm.Request{simpleRequest(), {Messages: []llm.Message{{Role: llm.RoleUser}}}, {}})
}

// The replies of the recorded streams, as history, encode the same way.
func TestEncodeRecordedReplies(t *testing.T) {
	var replies []llm.Message
	for _, name := range []string{"anthropic-claude-sonnet-4-multi-tool-streaming.yaml", "anthropic-claude-sonnet-4-tool-streaming.yaml"} {
		c := providertest.LoadCassette(t, name)
		for _, in := range c.Interactions {
			s := newServer(t, reply{Status: in.Response.Code,
				Header: map[string]string{"Content-Type": in.Response.Headers["Content-Type"][0]}, Body: in.Response.Body})
			replies = append(replies, providertest.ReplyOf(run(t, s.client(Config{}), simpleRequest())))
		}
	}
	checkEncode(t, New(Config{Model: "m"}), providertest.SessionRequests(replies, len(replies)+3))
}
