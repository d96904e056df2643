package responses

import (
	"bytes"
	"fmt"
	"testing"
	"testing/iotest"

	"github.com/plyhq/ply/internal/llm"
)

// FuzzDecodeStream checks that no server output makes the decoder panic,
// that no call is reported with empty arguments, and that the
// outcome does not depend on how the bytes were split into reads.
func FuzzDecodeStream(f *testing.F) {
	for _, s := range []string{
		stopBody,
		sseBody(
			`{"type":"response.output_item.added","item":{"id":"fc","type":"function_call","call_id":"c","name":"f"}}`,
			`{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{}"}`,
			`{"type":"response.output_item.done","item":{"id":"fc","type":"function_call"}}`,
			`{"type":"response.output_item.done","item":{"id":"fc","type":"function_call"}}`,
			completed(`{"input_tokens":1}`)),
		sseBody(`{"type":"response.reasoning_summary_text.delta","item_id":"r","summary_index":2,"delta":"x"}`,
			`{"type":"response.output_item.done","item":{"id":"r","type":"reasoning","encrypted_content":"e"}}`,
			`{"type":"response.incomplete","response":{"incomplete_details":null}}`),
		sseBody(`{"type":"error","code":429,"message":null}`),
		sseBody(`{"type":"response.failed","response":{"error":"x"}}`),
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"content\":{}}}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		outcome := func(whole bool) string {
			var b bytes.Buffer
			yield := func(c llm.Chunk, err error) bool {
				for _, call := range c.Calls {
					if call.Args == "" {
						t.Errorf("call with empty args: %+v", call)
					}
				}
				u := c.Usage
				c.Usage = nil
				fmt.Fprintf(&b, "%+v %+v %v\n", c, u, err)
				return true
			}
			var err error
			if whole {
				err = decodeStream(bytes.NewReader(in), yield)
			} else {
				err = decodeStream(iotest.OneByteReader(bytes.NewReader(in)), yield)
			}
			fmt.Fprintf(&b, "end: %v", err)
			return b.String()
		}
		if a, b := outcome(true), outcome(false); a != b {
			t.Fatalf("outcome depends on read sizes:\n%s\n---\n%s", a, b)
		}
	})
}
