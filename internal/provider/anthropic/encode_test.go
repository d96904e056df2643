package anthropic

import (
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
