package responses

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

// checkEncode compares, request after request with one client (so that
// its cache of encoded entries is used), the body Stream sends with
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
