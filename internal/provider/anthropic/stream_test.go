package anthropic

import (
	"errors"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

func TestThinkingAndRedactedThinking(t *testing.T) {
	body := sseBody(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" think."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Hi!"}}`,
		`{"type":"content_block_stop","index":2}`,
		messageDelta("end_turn", 30), evStop)
	for _, piece := range []int{0, 5} {
		s := newServer(t, reply{Body: body, Piece: piece})
		var seq []llm.Chunk
		for ch, err := range s.client(Config{}).Stream(t.Context(), simpleRequest()) {
			if err != nil {
				t.Fatal(err)
			}
			seq = append(seq, ch)
		}
		want := []llm.Chunk{
			{Thought: "Let me"},
			{Thought: " think."},
			{ThoughtSignature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
			{ThoughtSignature: redactedPrefix + "EmwKAhgBEgy3va3pzix/LafPsn4a"},
			{Text: "Hi!"},
			{FinishReason: llm.FinishStop},
			{Usage: &llm.Usage{InputTokens: 35, OutputTokens: 30, CachedTokens: 20, TotalTokens: 65}},
		}
		if !reflect.DeepEqual(seq, want) {
			t.Fatalf("piece %d: chunks\n%+v\nwant\n%+v", piece, seq, want)
		}
	}
}

func TestFinishReasons(t *testing.T) {
	for wire, want := range map[string]llm.FinishReason{
		"end_turn":                      llm.FinishStop,
		"stop_sequence":                 llm.FinishStop,
		"tool_use":                      llm.FinishToolCalls,
		"max_tokens":                    llm.FinishMaxTokens,
		"model_context_window_exceeded": llm.FinishMaxTokens,
		"refusal":                       llm.FinishContentFilter,
		"pause_turn":                    llm.FinishOther,
	} {
		s := newServer(t, reply{Body: sseBody(append(append([]string{evStart}, textBlock3(0, "x")...), messageDelta(wire, 2), evStop)...)})
		r := run(t, s.client(Config{}), simpleRequest())
		if r.Err != nil || !reflect.DeepEqual(r.Finish, []llm.FinishReason{want}) {
			t.Errorf("%s: finish %v err %v, want %v", wire, r.Finish, r.Err, want)
		}
	}
}

func TestToolUseArguments(t *testing.T) {
	start := func(i, input string) string {
		return `{"type":"content_block_start","index":` + i + `,"content_block":{"type":"tool_use","id":"t` + i + `","name":"f","input":` + input + `}}`
	}
	deltaJSON := func(i, s string) string {
		return `{"type":"content_block_delta","index":` + i + `,"delta":{"type":"input_json_delta","partial_json":` + quote(s) + `}}`
	}
	stop := func(i string) string { return `{"type":"content_block_stop","index":` + i + `}` }
	body := sseBody(evStart,
		start("0", `{}`), stop("0"), // no deltas at all
		start("1", `{}`), deltaJSON("1", ""), stop("1"), // only the empty first fragment
		start("2", `{"q":1}`), stop("2"), // input given whole at the start
		start("3", `{}`), deltaJSON("3", ""), deltaJSON("3", `{"a":`), deltaJSON("3", `"é"}`), stop("3"),
		// Unknown block and delta kinds (server tools, citations) are ignored.
		`{"type":"content_block_start","index":4,"content_block":{"type":"server_tool_use","id":"srv","name":"web_search","input":{}}}`,
		`{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{}}}`,
		stop("4"),
		messageDelta("tool_use", 9), evStop)
	s := newServer(t, reply{Body: body, Piece: 2})
	r := run(t, s.client(Config{}), simpleRequest())
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := []llm.FunctionCall{
		{ID: "t0", Name: "f", Args: "{}"},
		{ID: "t1", Name: "f", Args: "{}"},
		{ID: "t2", Name: "f", Args: `{"q":1}`},
		{ID: "t3", Name: "f", Args: `{"a":"é"}`},
	}
	if !reflect.DeepEqual(r.Calls, want) {
		t.Fatalf("calls = %+v\nwant %+v", r.Calls, want)
	}
}

// A reply cut by the token limit may end with a tool_use block that never
// stopped; its call goes out with MAX_TOKENS so the layers above can mark
// its arguments as truncated.
func TestMaxTokensWithOpenToolUse(t *testing.T) {
	body := sseBody(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"write","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"content\":\"abc"}}`,
		messageDelta("max_tokens", 100), evStop)
	s := newServer(t, reply{Body: body})
	var last llm.Chunk
	for ch, err := range s.client(Config{}).Stream(t.Context(), simpleRequest()) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.FinishReason != "" {
			last = ch
		}
	}
	want := []llm.FunctionCall{{ID: "t0", Name: "write", Args: `{"content":"abc`}}
	if last.FinishReason != llm.FinishMaxTokens || !reflect.DeepEqual(last.Calls, want) {
		t.Fatalf("finish chunk %+v", last)
	}
}

func TestUsageFromMessageDelta(t *testing.T) {
	// Newer API versions repeat the input counts in message_delta; they
	// win over message_start's, and absent fields keep theirs.
	body := sseBody(evStart, textBlock3(0, "x")[0], textBlock3(0, "x")[1], textBlock3(0, "x")[2],
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":11,"output_tokens":7}}`, evStop)
	s := newServer(t, reply{Body: body})
	r := run(t, s.client(Config{}), simpleRequest())
	want := llm.Usage{InputTokens: 11 + 5 + 20, OutputTokens: 7, CachedTokens: 20, TotalTokens: 43}
	if r.Err != nil || r.Usage == nil || *r.Usage != want {
		t.Fatalf("usage %+v err %v, want %+v", r.Usage, r.Err, want)
	}
}

func TestErrorEventMidStream(t *testing.T) {
	tests := []struct {
		name, ev string
		kind     llm.ErrorKind
		code     string
		msg      string
	}{
		{"overloaded", `event: error` + "\n" + `data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, llm.ErrOverloaded, "overloaded_error", "Overloaded"},
		{"rate limit", `event: error` + "\n" + `data: {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`, llm.ErrRateLimit, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"},
		{"api error", `event: error` + "\n" + `data: {"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, llm.ErrServer, "api_error", "Internal server error"},
		{"prompt too long", `event: error` + "\n" + `data: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, llm.ErrContextLength, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"},
		{"no event line", `data: {"type":"error","error":{"type":"authentication_error","message":"bad key"}}`, llm.ErrAuth, "authentication_error", "bad key"},
		{"plain text", "event: error\ndata: upstream went away", llm.ErrUnknown, "", "upstream went away"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blk := textBlock3(0, "par")
			body := sseBody(evStart, blk[0], blk[1]) + tt.ev + "\n\n"
			s := newServer(t, reply{Body: body})
			r := run(t, s.client(Config{}), simpleRequest())
			var ae *llm.APIError
			if !errors.As(r.Err, &ae) {
				t.Fatalf("err = %v, want APIError", r.Err)
			}
			want := llm.APIError{Provider: "anthropic", Kind: tt.kind, Code: tt.code, Message: tt.msg}
			if *ae != want {
				t.Fatalf("got  %+v\nwant %+v", *ae, want)
			}
			if r.Text != "par" {
				t.Fatalf("text before the error = %q", r.Text)
			}
		})
	}
}

func TestInvalidStreams(t *testing.T) {
	open := `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`
	blk := textBlock3(0, "a")
	tests := []struct {
		name, body, reason, text string
	}{
		{"empty body", "", "no message_start", ""},
		{"only pings", sseBody(`{"type": "ping"}`, `{"type": "ping"}`), "no message_start", ""},
		{"no stop reason", sseBody(evStart, blk[0], blk[1], blk[2], evStop), "without a stop reason", "a"},
		{"cut after a block", sseBody(evStart, blk[0], blk[1]), "without a stop reason", "a"},
		// The open call is not reported: its arguments were cut.
		{"cut inside a tool_use", sseBody(evStart, open, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}`), "without a stop reason", ""},
		{"malformed JSON", sseBody(evStart, blk[0], blk[1]) + "event: content_block_delta\ndata: {\"type\":\"cont\n\n", "not JSON", "a"},
		{"unterminated last event", sseBody(evStart, blk[0], blk[1], blk[2]) + "event: message_delta\ndata: " + messageDelta("end_turn", 1), "without a stop reason", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Body: tt.body})
			r := run(t, s.client(Config{}), simpleRequest())
			wantInvalid(t, r.Err, tt.reason)
			if r.Text != tt.text || len(r.Calls) != 0 {
				t.Fatalf("yielded text %q calls %v", r.Text, r.Calls)
			}
		})
	}
}

// A stop reason without message_stop (a proxy that drops the last event)
// is a finished reply.
func TestStopReasonWithoutMessageStop(t *testing.T) {
	blk := textBlock3(0, "a")
	s := newServer(t, reply{Body: sseBody(evStart, blk[0], blk[1], blk[2], messageDelta("end_turn", 1))})
	if r := run(t, s.client(Config{}), simpleRequest()); r.Err != nil || r.Text != "a" || r.Usage == nil {
		t.Fatalf("%+v", r)
	}
}

func TestTransportFaults(t *testing.T) {
	blk := textBlock3(0, "a")
	providertest.TransportFaults(t, providertest.Faults{
		Stream:      streamAt,
		Endpoint:    endpoint,
		Start:       sseBody(evStart, blk[0], blk[1]),
		Cut:         sseBody(evStart, blk[0], blk[1]) + "event: content_block_delta\ndata: {\"ty",
		SteadyHead:  sseBody(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		SteadyPiece: sseBody(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}`),
		SteadyTail:  sseBody(`{"type":"content_block_stop","index":0}`, messageDelta("end_turn", 5), evStop),
	})
}
