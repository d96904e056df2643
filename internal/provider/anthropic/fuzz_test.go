package anthropic

import (
	"bytes"
	"fmt"
	"testing"
	"testing/iotest"

	"github.com/plyhq/ply/internal/llm"
)

// FuzzDecodeStream checks that no server output makes the decoder panic,
// that no yielded call has empty arguments, and
// that the outcome does not depend on how the bytes were split into reads.
func FuzzDecodeStream(f *testing.F) {
	for _, s := range []string{
		stopBody,
		sseBody(evStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
			`{"type":"content_block_stop","index":0}`, messageDelta("tool_use", 1), evStop),
		sseBody(evStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"d"}}`,
			messageDelta("max_tokens", 1)),
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n",
		"data: {\"type\":\"message_delta\",\"usage\":null,\"delta\":null}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":-1,\"content_block\":{\"type\":\"tool_use\",\"input\":[1]}}\n\n",
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
