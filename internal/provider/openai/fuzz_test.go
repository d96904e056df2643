package openai

import (
	"bytes"
	"fmt"
	"testing"
	"testing/iotest"

	"github.com/plyhq/ply/internal/llm"
)

// FuzzDecodeStream checks that no server output makes the decoder panic,
// and that the outcome does not depend on how the bytes were split into
// reads.
func FuzzDecodeStream(f *testing.F) {
	for _, s := range []string{
		stopBody,
		sseBody(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}},{"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1}}`),
		sseBody(`{"error":{"message":"x","code":429}}`),
		sseBody(`{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":"t"}],"reasoning":{"x":1}}}]}`),
		"data: {\"choices\":null}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		outcome := func(whole bool) string {
			var b bytes.Buffer
			yield := func(c llm.Chunk, err error) bool {
				u := c.Usage
				c.Usage = nil
				fmt.Fprintf(&b, "%+v %+v %v\n", c, u, err)
				return true
			}
			var err error
			b.Reset()
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
