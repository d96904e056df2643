package sdk

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// callThenAnswer asks for one call in every query's first round and
// answers its result; each round uses 10 input tokens.
type callThenAnswer struct {
	mu sync.Mutex
	n  int
}

func (c *callThenAnswer) SendMessageStream(_ context.Context, _ []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	u := &llm.Usage{InputTokens: 10}
	return func(yield func(turn.Event) bool) {
		if typ == client.UserQuery {
			if yield(&turn.ToolCallRequest{CallID: "c1", Name: "agent", Args: `{}`}) {
				yield(turn.Finished{Reason: llm.FinishToolCalls, Usage: u})
			}
			return
		}
		if yield(turn.Content{Text: "done"}) {
			yield(turn.Finished{Reason: llm.FinishStop, Text: "done", Usage: u})
		}
	}
}

// subagents runs each call as a subagent whose one round uses 100 input
// tokens.
type subagents struct{}

func (subagents) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]headless.Outcome, error) {
	sub := headless.Config{Format: headless.FormatStreamJSON, SessionID: "s"}
	res := headless.Nested(ctx, sub, usedRounds{}, noTools{}, []llm.Part{{Text: "sub"}}, calls[0].CallID)
	return []headless.Outcome{{Response: llm.FunctionResponse{ID: calls[0].CallID, Name: calls[0].Name, Output: res.Result}}}, nil
}

type usedRounds struct{}

func (usedRounds) SendMessageStream(context.Context, []llm.Part, client.SendType) iter.Seq[turn.Event] {
	return func(yield func(turn.Event) bool) {
		if yield(turn.Content{Text: "sub done"}) {
			yield(turn.Finished{Reason: llm.FinishStop, Text: "sub done", Usage: &llm.Usage{InputTokens: 100}})
		}
	}
}

// Each query's result counts its own rounds and its own subagents, not
// those of the queries before it; get_usage_info sums the queries.
func TestSDKUsageIsPerQuery(t *testing.T) {
	var out lineWriter
	s := New(headless.Config{Format: headless.FormatStreamJSON, Stdout: &out, Stderr: io.Discard, SessionID: "s"})
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() { code <- s.Serve(context.Background(), &callThenAnswer{}, subagents{}, pr, Controls{}) }()
	for i := 1; i <= 2; i++ {
		if _, err := io.WriteString(pw, sdkUser("go")); err != nil {
			t.Fatal(err)
		}
		out.waitFor(t, "result", i)
	}
	if _, err := io.WriteString(pw, `{"type":"control_request","request_id":"u","request":{"subtype":"get_usage_info"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	got := out.waitFor(t, "control_response", 1)
	pw.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
	var results []int
	var total int
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		var m struct {
			Type  string `json:"type"`
			Usage struct {
				InputTokens int `json:"input_tokens"`
			} `json:"usage"`
			Response struct {
				Response struct {
					Usage struct {
						InputTokens int `json:"input_tokens"`
					} `json:"usage"`
				} `json:"response"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		switch m.Type {
		case "result":
			results = append(results, m.Usage.InputTokens)
		case "control_response":
			total = m.Response.Response.Usage.InputTokens
		}
	}
	if len(results) != 2 || results[0] != 120 || results[1] != 120 || total != 240 {
		t.Fatalf("results' input tokens %v, session %d; want 120 each, 240 in all:\n%s", results, total, got)
	}
}
