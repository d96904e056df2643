package headless

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// bigMessages are a run's messages with texts past the size from which the
// sinks escape them straight into the output, and small ones around them.
func bigMessages(n int) []any {
	weird := "quote \" back \\ nl \n tab \t nul \x00 <&> é 世 \u2028 bad \xff end "
	big := strings.Repeat(weird, n/len(weird)+1)
	isErr := false
	return []any{
		InitMessage(Config{SessionID: "s", Model: "m"}),
		Assistant{Type: "assistant", UUID: "u1", SessionID: "s", Message: AssistantBody{ID: "a", Type: "message", Role: "assistant",
			Content: []Block{{Type: "thinking", Thinking: big + "thought", Signature: "sig"}}}},
		Assistant{Type: "assistant", UUID: "u2", SessionID: "s", Message: AssistantBody{ID: "a", Type: "message", Role: "assistant",
			Content: []Block{{Type: "text", Text: big}}}},
		User{Type: "user", UUID: "u3", SessionID: "s", Message: UserBody{Role: "user", Content: []Block{
			{Type: "tool_result", ToolUseID: "c1", IsError: &isErr, Content: "small"},
			{Type: "tool_result", ToolUseID: "c2", IsError: &isErr, Content: big + "output"}}}},
		map[string]any{"type": "stream_event", "event": map[string]any{"text": "<delta>"}},
		Result{Type: "result", Subtype: SubtypeSuccess, Result: big, Usage: Usage{InputTokens: 3}, PermissionDenials: []Denial{}},
	}
}

func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The json and stream-json sinks print exactly what encoding/json prints,
// long texts included.
func TestSinksPrintWhatEncodingJSONPrints(t *testing.T) {
	msgs := bigMessages(2 << 20)
	var stream, want bytes.Buffer
	s := NewStreamJSON(&stream)
	for _, m := range msgs[:len(msgs)-1] {
		s.Message(m)
		want.Write(encodingJSON(t, m))
	}
	s.Result(msgs[len(msgs)-1].(Result))
	want.Write(encodingJSON(t, msgs[len(msgs)-1]))
	if !bytes.Equal(stream.Bytes(), want.Bytes()) {
		t.Errorf("stream-json differs from encoding/json: %d bytes, want %d", stream.Len(), want.Len())
	}

	var arr bytes.Buffer
	j := &jsonSink{w: &arr}
	for _, m := range msgs[:len(msgs)-1] {
		j.Message(m)
	}
	j.Result(msgs[len(msgs)-1].(Result))
	if w := encodingJSON(t, msgs); !bytes.Equal(arr.Bytes(), w) {
		t.Errorf("json differs from encoding/json: %d bytes, want %d", arr.Len(), len(w))
	}
}

// Printing a long answer does not copy it: the sinks write it escaped
// straight into the output, allocating a small part of its size.
func TestSinksDoNotCopyALongAnswer(t *testing.T) {
	const size = 16 << 20
	text := strings.Repeat("a line of the answer\n", size/21+1)
	for _, format := range []string{FormatJSON, FormatStreamJSON} {
		sink := newSink(Config{Format: format, Stdout: discardWriter{}})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		sink.Message(Assistant{Type: "assistant", Message: AssistantBody{Content: []Block{{Type: "text", Text: text}}}})
		sink.Result(Result{Type: "result", Result: text})
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > size/4 {
			t.Errorf("%s: printing a %d MB answer twice allocated %d MB", format, size>>20, got>>20)
		}
	}
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
