package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// bodyTransport answers every request with the same body, without a
// network, so that the benchmark measures decoding and assembly only.
type bodyTransport struct{ body []byte }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(t.body)),
		Request:    r,
	}, nil
}

// syntheticStream is a long answer shaped like the recorded ones: text
// deltas of a few characters, then three tool calls whose arguments come
// in small fragments, the finish reason, usage and [DONE].
func syntheticStream(textChunks, argChunks int) []byte {
	const head = `{"id":"chatcmpl-CK0XC8ADYjWGumKgPucuZfGDaWNiZ","object":"chat.completion.chunk","created":1758884650,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_cbf1785567",`
	var b strings.Builder
	for i := range textChunks {
		fmt.Fprintf(&b, "data: %s\"choices\":[{\"index\":0,\"delta\":{\"content\":\" word%d\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null,\"obfuscation\":\"YafdRYS6Y8xr5\"}\n\n", head, i)
	}
	for c := range 3 {
		fmt.Fprintf(&b, "data: %s\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":\"call_%d\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"\"}}]},\"finish_reason\":null}],\"usage\":null}\n\n", head, c, c)
		for i := range argChunks {
			frag := `\"line \\n` + fmt.Sprint(i) + `\"`
			fmt.Fprintf(&b, "data: %s\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"function\":{\"arguments\":\"%s\"}}]},\"finish_reason\":null}],\"usage\":null}\n\n", head, c, frag)
		}
	}
	fmt.Fprintf(&b, "data: %s\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":null}\n\n", head)
	fmt.Fprintf(&b, "data: %s\"choices\":[],\"usage\":{\"prompt_tokens\":106,\"completion_tokens\":50,\"total_tokens\":156}}\n\n", head)
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

func BenchmarkStream(b *testing.B) {
	body := syntheticStream(5000, 5000)
	c := New(Config{BaseURL: "http://bench.invalid/v1", Model: "m", HTTPClient: &http.Client{Transport: bodyTransport{body}}})
	req := simpleRequest()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var calls, text int
		for ch, err := range c.Stream(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
			calls += len(ch.Calls)
			text += len(ch.Text)
		}
		if calls != 3 || text == 0 {
			b.Fatalf("calls %d text %d", calls, text)
		}
	}
}

func TestSyntheticStreamAssembles(t *testing.T) {
	body := syntheticStream(3, 2)
	c := New(Config{BaseURL: "http://bench.invalid/v1", Model: "m", HTTPClient: &http.Client{Transport: bodyTransport{body}}})
	r := run(t, c, simpleRequest())
	if r.Err != nil || r.Text != " word0 word1 word2" || len(r.Calls) != 3 {
		t.Fatalf("%+v", r)
	}
	if want := `"line \n0""line \n1"`; r.Calls[2].Args != want || r.Calls[2].ID != "call_2" {
		t.Fatalf("call = %+v, want args %s", r.Calls[2], want)
	}
}
