package responses

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
	for _, cfg := range []Config{{Model: "m"}, {Model: "m", Reasoning: &Reasoning{Effort: "high", Summary: "auto"}}} {
		checkEncode(t, New(cfg), providertest.SessionRequests(nil, 40))
	}
	checkEncode(t, New(Config{Model: "x"}), []*llm.Request{simpleRequest(), {Messages: []llm.Message{{Role: llm.RoleUser}}}, {}})
}

// The reply of the recorded stream, as history, encodes the same way.
func TestEncodeRecordedReplies(t *testing.T) {
	body := providertest.LoadTypedEvents(t, "openai-responses-gpt-5.1-tool-call.chunks.txt")
	s := newServer(t, reply{Body: body})
	replies := []llm.Message{providertest.ReplyOf(run(t, s.client(Config{}), simpleRequest()))}
	checkEncode(t, New(Config{Model: "m"}), providertest.SessionRequests(replies, 5))
}
