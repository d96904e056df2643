package openai

import (
	"errors"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

func TestReasoningDeltas(t *testing.T) {
	for name, body := range map[string]string{
		"reasoning_content": sseBody(
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Let me"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":" think."}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":null}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]}`),
		"reasoning": sseBody(
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Let me"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"","reasoning":" think."}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Hi!"},"finish_reason":"stop"}]}`),
		"both, same text": sseBody(
			`{"choices":[{"index":0,"delta":{"reasoning_content":"Let me","reasoning":"Let me"}}]}`,
			`{"choices":[{"index":0,"delta":{"reasoning_content":" think.","reasoning":" think."}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Hi!"},"finish_reason":"stop"}]}`),
		"mistral content parts": sseBody(
			`{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me think."}]}]}}]}`,
			`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Hi!"}]},"finish_reason":"stop"}]}`),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, reply{Body: body})
			r := run(t, s.client(Config{}), simpleRequest())
			if r.Err != nil || r.Thought != "Let me think." || r.Text != "Hi!" {
				t.Fatalf("thought %q text %q err %v", r.Thought, r.Text, r.Err)
			}
		})
	}
}

func TestCRLFAndComments(t *testing.T) {
	body := ": OPENROUTER PROCESSING\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n\r\n" +
		"event: ping\r\ndata: ping\r\n\r\n" + // vendor event, not JSON: ignored
		"data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"\"}]}\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n" +
		"data: [DONE]\r\n\r\n"
	for _, piece := range []int{0, 1, 3} {
		s := newServer(t, reply{Body: body, Piece: piece})
		r := run(t, s.client(Config{}), simpleRequest())
		if r.Err != nil || r.Text != "ab" || !reflect.DeepEqual(r.Finish, []llm.FinishReason{llm.FinishStop}) {
			t.Fatalf("piece %d: text %q finish %v err %v", piece, r.Text, r.Finish, r.Err)
		}
	}
}

func TestToolCallAssemblyQuirks(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		calls []llm.FunctionCall
	}{
		{
			"id and name repeated on every fragment",
			sseBody(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			[]llm.FunctionCall{{ID: "a", Name: "f", Args: `{"x":1}`}},
		},
		{
			"index-less calls",
			sseBody(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{\"y\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			[]llm.FunctionCall{{ID: "a", Name: "f", Args: `{}`}, {ID: "b", Name: "g", Args: `{"y":2}`}},
		},
		{
			"every call numbered 0",
			sseBody(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			[]llm.FunctionCall{{ID: "a", Name: "f", Args: `{}`}, {ID: "b", Name: "g", Args: `{}`}},
		},
		{
			"interleaved indexes, several calls in one delta, finish in the same chunk",
			sseBody(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"["}},{"index":1,"id":"b","function":{"name":"g","arguments":"("}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":")"}},{"index":0,"function":{"arguments":"]"}}]},"finish_reason":"tool_calls"}]}`),
			[]llm.FunctionCall{{ID: "a", Name: "f", Args: `[` + `]`}, {ID: "b", Name: "g", Args: `()`}},
		},
		{
			"no id from the server",
			sseBody(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`),
			[]llm.FunctionCall{{Name: "f", Args: `{}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Body: tt.body})
			r := run(t, s.client(Config{}), simpleRequest())
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if !reflect.DeepEqual(r.Calls, tt.calls) {
				t.Fatalf("calls = %+v\nwant %+v", r.Calls, tt.calls)
			}
		})
	}
}

func TestFinishReasons(t *testing.T) {
	for wire, want := range map[string]llm.FinishReason{
		"stop":                         llm.FinishStop,
		"tool_calls":                   llm.FinishToolCalls,
		"function_call":                llm.FinishToolCalls,
		"length":                       llm.FinishMaxTokens,
		"content_filter":               llm.FinishContentFilter,
		"insufficient_system_resource": llm.FinishOther,
	} {
		s := newServer(t, reply{Body: sseBody(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"` + wire + `"}]}`)})
		r := run(t, s.client(Config{}), simpleRequest())
		if r.Err != nil || !reflect.DeepEqual(r.Finish, []llm.FinishReason{want}) {
			t.Errorf("%s: finish %v err %v, want %v", wire, r.Finish, r.Err, want)
		}
	}
}

func TestUsage(t *testing.T) {
	// Cumulative usage on every chunk (vLLM's continuous usage stats) must
	// be reported once, the last value winning.
	body := sseBody(
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`,
		`{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
		`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":1}}}`)
	s := newServer(t, reply{Body: body})
	r := run(t, s.client(Config{}), simpleRequest())
	want := llm.Usage{InputTokens: 10, OutputTokens: 2, CachedTokens: 8, ReasoningTokens: 1, TotalTokens: 12}
	if r.Err != nil || r.Usage == nil || *r.Usage != want {
		t.Fatalf("usage %+v err %v, want %+v", r.Usage, r.Err, want)
	}
}

func TestErrorEventMidStream(t *testing.T) {
	tests := []struct {
		name string
		ev   string
		kind llm.ErrorKind
		msg  string
	}{
		{"server error", `data: {"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`, llm.ErrServer, "The server had an error while processing your request."},
		{"openrouter rate limit", `data: {"id":"x","error":{"code":429,"message":"Rate limit exceeded"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`, llm.ErrRateLimit, "Rate limit exceeded"},
		{"context length", `data: {"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, llm.ErrContextLength, "This model's maximum context length is 8192 tokens"},
		{"named error event, plain text", "event: error\ndata: upstream went away", llm.ErrUnknown, "upstream went away"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n" + tt.ev + "\n\n"
			s := newServer(t, reply{Body: body})
			r := run(t, s.client(Config{}), simpleRequest())
			var ae *llm.APIError
			if !errors.As(r.Err, &ae) {
				t.Fatalf("err = %v, want APIError", r.Err)
			}
			if ae.Kind != tt.kind || ae.Message != tt.msg || ae.Provider != "openai" {
				t.Fatalf("got %+v", ae)
			}
			if r.Text != "par" {
				t.Fatalf("text before the error = %q", r.Text)
			}
		})
	}
}

func TestInvalidStreams(t *testing.T) {
	tests := []struct {
		name, body, reason, text string
		calls                    int
	}{
		{"malformed JSON", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"ind\n\n", "not JSON", "a", 0},
		{"no finish reason", sseBody(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`), "without a finish reason", "a", 0},
		{"no finish reason, no DONE", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n", "without a finish reason", "a", 0},
		{"no finish reason, pending call", sseBody(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}`), "without a finish reason", "", 1},
		{"only DONE", sseBody(), "no choices", "", 0},
		{"only usage", sseBody(`{"choices":[],"usage":{"prompt_tokens":1}}`), "no choices", "", 0},
		{"empty body", "", "no choices", "", 0},
		{"unterminated last event", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"}]}", "without a finish reason", "a", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Body: tt.body})
			r := run(t, s.client(Config{}), simpleRequest())
			wantInvalid(t, r.Err, tt.reason)
			if r.Text != tt.text || len(r.Calls) != tt.calls {
				t.Fatalf("yielded text %q calls %v", r.Text, r.Calls)
			}
		})
	}
}

func TestWholeJSONAnswer(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi","reasoning_content":"hm","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`
	s := newServer(t, reply{Body: body, Header: map[string]string{"Content-Type": "application/json"}})
	r := run(t, s.client(Config{}), simpleRequest())
	if r.Err != nil || r.Text != "hi" || r.Thought != "hm" || len(r.Calls) != 1 || r.Calls[0].ID != "c" ||
		r.Usage == nil || r.Usage.TotalTokens != 7 || r.Finish[0] != llm.FinishToolCalls {
		t.Fatalf("%+v", r)
	}
}

func TestTransportFaults(t *testing.T) {
	start := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
	providertest.TransportFaults(t, providertest.Faults{
		Stream:      streamAt,
		Endpoint:    endpoint,
		Start:       start,
		Cut:         start + "data: {\"choi",
		SteadyPiece: start,
		SteadyTail:  sseBody(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
	})
}
