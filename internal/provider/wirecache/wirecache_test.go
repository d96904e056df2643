package wirecache

import (
	"encoding/json"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// encodeAll encodes msgs through c, counting the messages encoded anew.
func encodeAll(t *testing.T, c *Cache[[]byte], msgs []llm.Message) ([]string, int) {
	t.Helper()
	n := 0
	encs, err := c.Encode(msgs, func(_ int, m *llm.Message) ([]byte, int, error) {
		n++
		return Bytes(json.Marshal(m))
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(encs))
	for i, e := range encs {
		out[i] = string(e)
	}
	return out, n
}

func want(t *testing.T, msgs []llm.Message, got []string) {
	t.Helper()
	for i := range msgs {
		b, _ := json.Marshal(&msgs[i])
		if got[i] != string(b) {
			t.Fatalf("message %d: %s, want %s", i, got[i], b)
		}
	}
}

// Only what changed is encoded again, wherever it moved; a message changed
// in place, its parts' array the same, is never taken for the old one.
func TestEncodeReusesOnlyEqualMessages(t *testing.T) {
	var c Cache[[]byte]
	call := &llm.FunctionCall{ID: "c1", Name: "read_file", Args: `{}`}
	h := []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{{Text: "hi"}}},
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: "reading"}, {Call: call}}},
		{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: "c1", Output: "data", Media: []llm.Media{{MIMEType: "image/png", Data: []byte{1}}}}}}},
	}
	got, n := encodeAll(t, &c, h)
	want(t, h, got)
	if n != 3 {
		t.Fatalf("first request: %d encoded, want 3", n)
	}
	h = append(h, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "done"}}})
	if got, n = encodeAll(t, &c, h); n != 1 {
		t.Fatalf("a grown history: %d encoded, want 1", n)
	}
	want(t, h, got)

	// The front replaced by a summary: the rest is found where it moved.
	h2 := append([]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "summary"}}}}, h[2:]...)
	if got, n = encodeAll(t, &c, h2); n != 1 {
		t.Fatalf("a summarised history: %d encoded, want 1", n)
	}
	want(t, h2, got)

	// Changed in place: the text, the call's arguments, a media's bytes.
	h2[2].Parts[0].Text = "finished"
	*call = llm.FunctionCall{ID: "c1", Name: "read_file", Args: `{"a":1}`}
	h2[1].Parts[0].Response.Output = "cut"
	if got, n = encodeAll(t, &c, h2); n != 2 {
		t.Fatalf("changed in place: %d encoded, want 2", n)
	}
	want(t, h2, got)
	if got, n = encodeAll(t, &c, h); n != 2 {
		t.Fatalf("the older history again: %d encoded, want 2 (the call changed in place)", n)
	}
	want(t, h, got)
}
