package responses

import (
	"errors"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

func TestTextAndReasoning(t *testing.T) {
	body := sseBody(
		`{"type":"response.created","response":{"id":"r","status":"in_progress","output":[],"usage":null}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		`{"type":"response.reasoning_summary_part.added","item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":""}}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Let me"}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":" think."}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Then act."}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Let me think."}],"encrypted_content":"gAAAAenc"}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}`,
		`{"type":"response.content_part.added","item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
		textDelta("Hi"),
		`{"type":"response.output_text.annotation.added","item_id":"msg_1","annotation":{"type":"url_citation"}}`,
		textDelta("!"),
		`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi!"}]}}`,
		completed(`{"input_tokens":10,"input_tokens_details":{"cached_tokens":8},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":30}`))
	for _, piece := range []int{0, 3} {
		s := newServer(t, reply{Body: body, Piece: piece})
		var got []llm.Chunk
		for ch, err := range s.client(Config{}).Stream(t.Context(), simpleRequest()) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ch)
		}
		want := []llm.Chunk{
			{Thought: "Let me"},
			{Thought: " think."},
			{Thought: "\n\nThen act."},
			{ThoughtSignature: "gAAAAenc"},
			{Text: "Hi"},
			{Text: "!"},
			{FinishReason: llm.FinishStop},
			{Usage: &llm.Usage{InputTokens: 10, OutputTokens: 20, CachedTokens: 8, ReasoningTokens: 12, TotalTokens: 30}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("piece %d: chunks\n%+v\nwant\n%+v", piece, got, want)
		}
	}
}

// Items that were never streamed as deltas still yield their text.
func TestItemsWithoutDeltas(t *testing.T) {
	body := sseBody(
		`{"type":"response.output_item.done","item":{"id":"rs","type":"reasoning","summary":[{"text":"a"},{"text":"b"}]}}`,
		`{"type":"response.output_item.done","item":{"id":"m","type":"message","content":[{"type":"output_text","text":"hello"},{"type":"unknown","text":"x"}]}}`,
		`{"type":"response.output_item.done","item":{"id":"fc","type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\":1}"}}`,
		`{"type":"response.output_item.done","item":{"id":"ws","type":"web_search_call","content":"not a list"}}`,
		completed(""))
	s := newServer(t, reply{Body: body})
	r := run(t, s.client(Config{}), simpleRequest())
	if r.Err != nil || r.Thought != "a\n\nb" || r.Text != "hello" ||
		!reflect.DeepEqual(r.Calls, []llm.FunctionCall{{ID: "c1", Name: "f", Args: `{"a":1}`}}) ||
		!reflect.DeepEqual(r.Finish, []llm.FinishReason{llm.FinishToolCalls}) {
		t.Fatalf("%+v", r)
	}
}

func TestIncomplete(t *testing.T) {
	for reason, want := range map[string]llm.FinishReason{
		"max_output_tokens": llm.FinishMaxTokens,
		"content_filter":    llm.FinishContentFilter,
		"something_new":     llm.FinishOther,
	} {
		// A call cut by the limit goes out with the finish reason.
		body := sseBody(
			`{"type":"response.output_item.added","item":{"id":"fc","type":"function_call","call_id":"c1","name":"write","arguments":""}}`,
			`{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{\"content\":\"abc"}`,
			`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"`+reason+`"},"usage":{"input_tokens":5,"output_tokens":100}}}`)
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
		wantCalls := []llm.FunctionCall{{ID: "c1", Name: "write", Args: `{"content":"abc`}}
		if last.FinishReason != want || !reflect.DeepEqual(last.Calls, wantCalls) {
			t.Errorf("%s: finish chunk %+v", reason, last)
		}
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name, ev string
		want     llm.APIError
	}{
		{"response.failed", `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."}}}`,
			llm.APIError{Kind: llm.ErrServer, Code: "server_error", Message: "The model failed to generate a response."}},
		{"failed, context", `{"type":"response.failed","response":{"status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}}`,
			llm.APIError{Kind: llm.ErrContextLength, Code: "context_length_exceeded", Message: "Your input exceeds the context window of this model."}},
		{"failed without error", `{"type":"response.failed","response":{"status":"failed","error":null}}`,
			llm.APIError{Message: `{"type":"response.failed","response":{"status":"failed","error":null}}`}},
		{"error event", `{"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached","param":null,"sequence_number":3}`,
			llm.APIError{Kind: llm.ErrRateLimit, Code: "rate_limit_exceeded", Message: "Rate limit reached"}},
		{"nested error event", `{"type":"error","error":{"type":"server_error","code":"server_is_overloaded","message":"Overloaded"}}`,
			llm.APIError{Kind: llm.ErrOverloaded, Code: "server_is_overloaded", Message: "Overloaded"}},
		{"string error", `{"type":"error","error":"upstream went away"}`,
			llm.APIError{Message: "upstream went away"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Body: sseBody(textDelta("par"), tt.ev)})
			r := run(t, s.client(Config{}), simpleRequest())
			var ae *llm.APIError
			if !errors.As(r.Err, &ae) {
				t.Fatalf("err = %v, want APIError", r.Err)
			}
			tt.want.Provider = provider
			if *ae != tt.want {
				t.Fatalf("got  %+v\nwant %+v", *ae, tt.want)
			}
			if r.Text != "par" {
				t.Fatalf("text before the error = %q", r.Text)
			}
		})
	}
	// An error event whose data is not JSON.
	s := newServer(t, reply{Body: sseBody(textDelta("par")) + "event: error\ndata: boom\n\n"})
	var ae *llm.APIError
	if r := run(t, s.client(Config{}), simpleRequest()); !errors.As(r.Err, &ae) || ae.Message != "boom" {
		t.Fatalf("err = %v", r.Err)
	}
}

func TestInvalidStreams(t *testing.T) {
	tests := []struct {
		name, body, reason, text string
	}{
		{"empty body", "", "without response.completed", ""},
		{"no completion", sseBody(textDelta("a")), "without response.completed", "a"},
		{"pending call not reported", sseBody(`{"type":"response.output_item.added","item":{"id":"fc","type":"function_call","call_id":"c","name":"f"}}`), "without response.completed", ""},
		{"malformed JSON", sseBody(textDelta("a")) + "data: {\"type\":\n\n", "not JSON", "a"},
		{"malformed handled event", sseBody(textDelta("a"), `{"type":"response.output_item.done","item":"x"}`), "malformed", "a"},
		{"unterminated last event", sseBody(textDelta("a")) + "data: " + completed(""), "without response.completed", "a"},
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

// Two reasoning items: with encrypted content each closes its own
// thought; without, the second is set apart by a blank line, since the
// chat layer would join them into one thought.
func TestReasoningItemsApart(t *testing.T) {
	item := func(id, enc string) []string {
		return []string{
			`{"type":"response.reasoning_summary_text.delta","item_id":"` + id + `","summary_index":0,"delta":"` + id + `"}`,
			`{"type":"response.output_item.done","item":{"id":"` + id + `","type":"reasoning","encrypted_content":"` + enc + `"}}`,
		}
	}
	for enc, want := range map[string]string{"": "a\n\nb", "e": "ab"} {
		events := append(append(item("a", enc), item("b", enc)...), completed(""))
		s := newServer(t, reply{Body: sseBody(events...)})
		if r := run(t, s.client(Config{}), simpleRequest()); r.Err != nil || r.Thought != want {
			t.Errorf("encrypted %q: thought %q err %v, want %q", enc, r.Thought, r.Err, want)
		}
	}
}

func TestTransportFaults(t *testing.T) {
	providertest.TransportFaults(t, providertest.Faults{
		Stream:      streamAt,
		Endpoint:    endpoint,
		Start:       sseBody(textDelta("a")),
		Cut:         sseBody(textDelta("a")) + "event: response.output_text.delta\ndata: {\"ty",
		SteadyPiece: sseBody(textDelta("a")),
		SteadyTail:  sseBody(completed("")),
	})
}
