package gemini

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

// checkEncode checks c's streamed bodies against the whole encoding.
func checkEncode(t *testing.T, c *Client, reqs []*llm.Request) {
	t.Helper()
	providertest.CheckEncode(t, reqs, func(r *llm.Request) (any, error) {
		_, wire, err := c.buildRequest(r)
		return wire, err
	}, func(r *llm.Request) ([][]byte, error) {
		_, got, err := c.encode(r)
		return got, err
	})
}

func TestEncodeIsTheWholeEncoding(t *testing.T) {
	for _, cfg := range []Config{{Model: "m"}, {Model: "m", IncludeThoughts: true}} {
		checkEncode(t, New(cfg), providertest.SessionRequests(nil, 40))
	}
	// Responses out of call order, one without a name, a signature alone.
	calls := llm.Message{Role: llm.RoleModel, Parts: []llm.Part{
		{Thought: true, Signature: "s0"},
		{Call: &llm.FunctionCall{ID: "a", Name: "read_file", Args: `{}`}},
		{Call: &llm.FunctionCall{ID: "b", Name: "glob", Args: `{"p":1}`}}}}
	results := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{
		{Response: &llm.FunctionResponse{ID: "b", Output: "two", Media: []llm.Media{{MIMEType: "image/png", Data: []byte{1}}}}},
		{Response: &llm.FunctionResponse{ID: "a", Name: "read_file", Output: "one", IsError: true}},
		{Text: "and this"}}}
	user := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "go"}}}
	h := []llm.Message{user, calls, results, user}
	checkEncode(t, New(Config{Model: "x"}), []*llm.Request{
		simpleRequest(), {Messages: h}, {Messages: h[1:]}, {Messages: append(h, calls, results)}, {Messages: []llm.Message{{Role: llm.RoleUser}}}, {}})
}

// The replies of the recorded streams, as history, encode the same way.
func TestEncodeRecordedReplies(t *testing.T) {
	var replies []llm.Message
	for _, name := range []string{"google-gemini-2.5-pro-multi-tool-streaming.yaml", "google-gemini-2.5-flash-tool-streaming.yaml"} {
		c := providertest.LoadCassette(t, name)
		for _, in := range c.Interactions {
			s := newServer(t, reply{Status: in.Response.Code,
				Header: map[string]string{"Content-Type": in.Response.Headers["Content-Type"][0]}, Body: in.Response.Body})
			replies = append(replies, providertest.ReplyOf(run(t, s.client(Config{}), simpleRequest())))
		}
	}
	checkEncode(t, New(Config{Model: "m"}), providertest.SessionRequests(replies, len(replies)+3))
}
