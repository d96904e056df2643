package gemini

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

func textEvent(text string) string {
	return `{"candidates":[{"content":{"parts":[{"text":` + quote(text) + `}],"role":"model"},"index":0}]}`
}

func finishEvent(reason string) string {
	return `{"candidates":[{"content":{"role":"model"},"finishReason":"` + reason + `","index":0}]}`
}

// collect runs a stream and returns its chunks, failing on an error.
func collect(t *testing.T, c *Client, req *llm.Request) []llm.Chunk {
	t.Helper()
	var out []llm.Chunk
	for ch, err := range c.Stream(t.Context(), req) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ch)
	}
	return out
}

func TestPartsInOrder(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"text":"Let me","thought":true},{"text":" think.","thought":true,"thoughtSignature":"sT"}],"role":"model"},"index":0}]}`,
		`{"candidates":[{"content":{"parts":[
			{"text":"Sure: "},
			{"functionCall":{"id":"srv-id","name":"f","args":{"x":[1, 2]}}},
			{"functionCall":{"name":"g"}},
			{"text":"done","thoughtSignature":"sX"},
			{"text":""}],"role":"model"},"finishReason":"STOP","index":0},
			{"content":{"parts":[{"text":"second candidate"}]},"index":1}],
			"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"cachedContentTokenCount":4,"thoughtsTokenCount":3}}`)
	body = strings.NewReplacer("\n", "", "\t", "").Replace(body) // one data line per event
	s := newServer(t, reply{Body: body})
	got := collect(t, s.client(Config{}), simpleRequest())
	if len(got) > 4 && len(got[4].Calls) == 1 && generatedID.MatchString(got[4].Calls[0].ID) && strings.HasPrefix(got[4].Calls[0].ID, "g-") {
		got[4].Calls[0].ID = "generated"
	}
	want := []llm.Chunk{
		{Thought: "Let me"},
		{Thought: " think.", ThoughtSignature: "sT"},
		{Text: "Sure: "},
		{Calls: []llm.FunctionCall{{ID: "srv-id", Name: "f", Args: `{"x":[1, 2]}`}}},
		{Calls: []llm.FunctionCall{{ID: "generated", Name: "g", Args: "{}"}}},
		{Text: "done", ThoughtSignature: "sX"},
		{FinishReason: llm.FinishToolCalls},
		{Usage: &llm.Usage{InputTokens: 10, OutputTokens: 8, CachedTokens: 4, ReasoningTokens: 3, TotalTokens: 18}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks\n%+v\nwant\n%+v", got, want)
	}
}

func TestGeneratedIDsAreDistinct(t *testing.T) {
	call := `{"functionCall":{"name":"read","args":{}}}`
	body := sseBody(`{"candidates":[{"content":{"parts":[` + call + `,` + call + `,` + call + `]},"finishReason":"STOP","index":0}]}`)
	s := newServer(t, reply{Body: body})
	r := run(t, s.client(Config{}), simpleRequest())
	if r.Err != nil || len(r.Calls) != 3 {
		t.Fatalf("%+v", r)
	}
	seen := map[string]bool{}
	for _, c := range r.Calls {
		if !generatedID.MatchString(c.ID) || !strings.HasPrefix(c.ID, "read-") || seen[c.ID] {
			t.Fatalf("ids %+v", r.Calls)
		}
		seen[c.ID] = true
	}
}

func TestFinishReasons(t *testing.T) {
	for wire, want := range map[string]llm.FinishReason{
		"STOP":                    llm.FinishStop,
		"MAX_TOKENS":              llm.FinishMaxTokens,
		"SAFETY":                  llm.FinishContentFilter,
		"RECITATION":              llm.FinishContentFilter,
		"BLOCKLIST":               llm.FinishContentFilter,
		"PROHIBITED_CONTENT":      llm.FinishContentFilter,
		"SPII":                    llm.FinishContentFilter,
		"MALFORMED_FUNCTION_CALL": llm.FinishOther,
		"OTHER":                   llm.FinishOther,
		"FINISH_REASON_NEW":       llm.FinishOther,
	} {
		s := newServer(t, reply{Body: sseBody(textEvent("x"), finishEvent(wire))})
		r := run(t, s.client(Config{}), simpleRequest())
		if r.Err != nil || !reflect.DeepEqual(r.Finish, []llm.FinishReason{want}) {
			t.Errorf("%s: finish %v err %v, want %v", wire, r.Finish, r.Err, want)
		}
	}
}

func TestPromptBlocked(t *testing.T) {
	body := sseBody(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7}}`)
	s := newServer(t, reply{Body: body})
	r := run(t, s.client(Config{}), simpleRequest())
	if r.Err != nil || !reflect.DeepEqual(r.Finish, []llm.FinishReason{llm.FinishContentFilter}) || r.Usage.InputTokens != 7 {
		t.Fatalf("%+v", r)
	}
}

func TestErrorMidStream(t *testing.T) {
	tests := []struct {
		name, ev string
		want     llm.APIError
	}{
		{"overloaded", `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			llm.APIError{Kind: llm.ErrOverloaded, Code: "UNAVAILABLE", Message: "The model is overloaded. Please try again later."}},
		{"quota", `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}}`,
			llm.APIError{Kind: llm.ErrRateLimit, Code: "RESOURCE_EXHAUSTED", Message: "Resource has been exhausted", RetryAfter: 2500 * time.Millisecond}},
		{"internal", `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`,
			llm.APIError{Kind: llm.ErrServer, Code: "INTERNAL", Message: "An internal error has occurred."}},
		{"not an object", `{"error":"boom"}`, llm.APIError{Message: `"boom"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Body: sseBody(textEvent("par"), tt.ev)})
			r := run(t, s.client(Config{}), simpleRequest())
			var ae *llm.APIError
			if !errors.As(r.Err, &ae) {
				t.Fatalf("err = %v, want APIError", r.Err)
			}
			tt.want.Provider = "gemini"
			if *ae != tt.want {
				t.Fatalf("got  %+v\nwant %+v", *ae, tt.want)
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
	}{
		{"empty body", "", "no candidates", ""},
		{"only usage", sseBody(`{"usageMetadata":{"promptTokenCount":1}}`), "no candidates", ""},
		{"no finish reason", sseBody(textEvent("a"), textEvent("b")), "without a finish reason", "ab"},
		{"malformed JSON", sseBody(textEvent("a")) + "data: {\"candidates\": [\r\n\r\n", "not JSON", "a"},
		{"unterminated last event", sseBody(textEvent("a")) + "data: " + finishEvent("STOP"), "without a finish reason", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{Body: tt.body})
			r := run(t, s.client(Config{}), simpleRequest())
			wantInvalid(t, r.Err, tt.reason)
			if r.Text != tt.text {
				t.Fatalf("yielded text %q", r.Text)
			}
		})
	}
}

func TestTransportFaults(t *testing.T) {
	providertest.TransportFaults(t, providertest.Faults{
		Stream:      streamAt,
		Endpoint:    endpoint,
		Start:       sseBody(textEvent("a")),
		Cut:         sseBody(textEvent("a")) + "data: {\"candi",
		SteadyPiece: sseBody(textEvent("a")),
		SteadyTail:  sseBody(finishEvent("STOP")),
	})
}
