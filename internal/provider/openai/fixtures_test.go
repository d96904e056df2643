package openai

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

type wantTurn struct {
	text   string
	calls  []llm.FunctionCall
	finish llm.FinishReason
	usage  llm.Usage
}

func replayCassette(t *testing.T, name string, want []wantTurn) {
	c := providertest.LoadCassette(t, name)
	if len(c.Interactions) != len(want) {
		t.Fatalf("%s has %d interactions, test expects %d", name, len(c.Interactions), len(want))
	}
	for _, piece := range providertest.PieceSizes {
		for i, in := range c.Interactions {
			t.Run(fmt.Sprintf("interaction%d/piece%d", i, piece), func(t *testing.T) {
				s := newServer(t, reply{
					Status: in.Response.Code,
					Header: map[string]string{"Content-Type": in.Response.Headers["Content-Type"][0]},
					Body:   in.Response.Body,
					Piece:  piece,
				})
				r := run(t, s.client(Config{}), simpleRequest())
				checkTurn(t, r, want[i])
			})
		}
	}
}

func checkTurn(t *testing.T, r result, w wantTurn) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("error: %v", r.Err)
	}
	if r.Text != w.text {
		t.Errorf("text = %q, want %q", r.Text, w.text)
	}
	if r.Thought != "" {
		t.Errorf("thought = %q, want none", r.Thought)
	}
	if !reflect.DeepEqual(r.Calls, w.calls) {
		t.Errorf("calls = %#v\nwant %#v", r.Calls, w.calls)
	}
	if len(r.Finish) != 1 || r.Finish[0] != w.finish {
		t.Errorf("finish reasons = %v, want [%v]", r.Finish, w.finish)
	}
	if r.Usage == nil || *r.Usage != w.usage {
		t.Errorf("usage = %+v, want %+v", r.Usage, w.usage)
	}
}

func TestRecordedGPT4oMultiTool(t *testing.T) {
	args := `{"a": 2, "b": 3}`
	replayCassette(t, "openai-chat-gpt-4o-multi-tool-streaming.yaml", []wantTurn{
		{
			calls: []llm.FunctionCall{
				{ID: "call_MBriMTSHw1UFtzQAduPP0Mkj", Name: "add", Args: args},
				{ID: "call_7sVj20JsN3VYpXv8pZuLDruY", Name: "multiply", Args: args},
			},
			finish: llm.FinishToolCalls,
			usage:  llm.Usage{InputTokens: 106, OutputTokens: 50, TotalTokens: 156},
		},
		{
			text:   "The result of adding 2 and 3 is 5, and the result of multiplying 2 and 3 is 6.",
			finish: llm.FinishStop,
			usage:  llm.Usage{InputTokens: 172, OutputTokens: 28, TotalTokens: 200},
		},
	})
}

func TestRecordedGPT5Tool(t *testing.T) {
	replayCassette(t, "openai-chat-gpt-5-tool-streaming.yaml", []wantTurn{
		{
			calls:  []llm.FunctionCall{{ID: "call_R6xW0RTSZLIX6N8k9assZBi6", Name: "weather", Args: `{"location":"Florence, Italy"}`}},
			finish: llm.FinishToolCalls,
			usage:  llm.Usage{InputTokens: 145, OutputTokens: 89, ReasoningTokens: 64, TotalTokens: 234},
		},
		{
			text:   "It’s currently about 40°C in Florence, Italy. Would you like the hourly or 7-day forecast as well?",
			finish: llm.FinishStop,
			usage:  llm.Usage{InputTokens: 176, OutputTokens: 162, ReasoningTokens: 128, TotalTokens: 338},
		},
	})
}

// The .chunks.txt fixture holds decoded chunks, one per line; it is framed
// as OpenAI frames them, with [DONE] appended as the README says.
func TestRecordedGPT4oTextThenToolCall(t *testing.T) {
	lines := providertest.ChunkLines(t, "openai-chat-gpt-4o-text-then-tool-call.chunks.txt")
	body := sseBody(lines...)
	want := wantTurn{
		text:   "PRE_TOOL",
		calls:  []llm.FunctionCall{{ID: "call_NZa7xqfefoaMI2YYHowVXVlU", Name: "weather", Args: "{}"}},
		finish: llm.FinishToolCalls,
		usage:  llm.Usage{InputTokens: 58, OutputTokens: 12, TotalTokens: 70},
	}
	for _, piece := range providertest.PieceSizes {
		t.Run(fmt.Sprintf("piece%d", piece), func(t *testing.T) {
			s := newServer(t, reply{Body: body, Piece: piece})
			r := run(t, s.client(Config{}), simpleRequest())
			checkTurn(t, r, want)
			// Text comes before the call, in separate chunks: the caller
			// can render it while the call is still being assembled.
			if r.Chunks < 4 {
				t.Errorf("only %d chunks yielded", r.Chunks)
			}
		})
	}
}

// The recorded follow-up requests show what an official client sent after
// the tool results; ply's conversion of the same history must agree on
// every field the server interprets.
func TestRequestMatchesRecordedFollowUp(t *testing.T) {
	c := providertest.LoadCassette(t, "openai-chat-gpt-4o-multi-tool-streaming.yaml")
	recorded := c.Interactions[1].Request.Body
	args := `{"a": 2, "b": 3}`
	req := &llm.Request{
		Model:           "gpt-4o",
		System:          "You are a helpful assistant. Always use both add and multiply at the same time.",
		MaxOutputTokens: 4000,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "Add and multiply the number 2 and 3"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Call: &llm.FunctionCall{ID: "call_MBriMTSHw1UFtzQAduPP0Mkj", Name: "add", Args: args}},
				{Call: &llm.FunctionCall{ID: "call_7sVj20JsN3VYpXv8pZuLDruY", Name: "multiply", Args: args}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "call_MBriMTSHw1UFtzQAduPP0Mkj", Name: "add", Output: "5"}},
				{Response: &llm.FunctionResponse{ID: "call_7sVj20JsN3VYpXv8pZuLDruY", Name: "multiply", Output: "6"}},
			}},
		},
	}
	s := newServer(t, reply{Body: sseBody(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)})
	run(t, s.client(Config{}), req)
	got := s.Body(t, 0)
	want := decodeJSON(t, recorded)
	for _, key := range []string{"model", "messages", "stream", "stream_options", "max_tokens"} {
		if !reflect.DeepEqual(got[key], want[key]) {
			t.Errorf("%s = %v\nrecorded %v", key, got[key], want[key])
		}
	}
}
