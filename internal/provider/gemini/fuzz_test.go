package gemini

import (
	"bytes"
	"fmt"
	"testing"
	"testing/iotest"

	"github.com/plyhq/ply/internal/llm"
)

// FuzzDecodeStream checks that no server output makes the decoder panic,
// that no yielded call lacks an id or arguments, and that the outcome does
// not depend on how the bytes were split into reads.
func FuzzDecodeStream(f *testing.F) {
	for _, s := range []string{
		stopBody,
		sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}},"thoughtSignature":"s"},{"text":"t","thought":true}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1}}`),
		sseBody(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"x.RetryInfo","retryDelay":"bad"}]}}`),
		sseBody(`{"promptFeedback":{"blockReason":"SAFETY"}}`),
		"data: {\"candidates\":[{\"index\":1},{\"content\":null,\"index\":0}]}\r\n\r\n",
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"args\":null}}]}}]}\n\n",
	} {
		f.Add([]byte(s))
	}
	id := func(name string) string { return name + "-id" } // deterministic, so that outcomes compare
	f.Fuzz(func(t *testing.T, in []byte) {
		outcome := func(whole bool) string {
			var b bytes.Buffer
			yield := func(c llm.Chunk, err error) bool {
				for _, call := range c.Calls {
					if call.ID == "" || call.Args == "" {
						t.Errorf("incomplete call: %+v", call)
					}
				}
				u := c.Usage
				c.Usage = nil
				fmt.Fprintf(&b, "%+v %+v %v\n", c, u, err)
				return true
			}
			var err error
			if whole {
				err = decodeStream(bytes.NewReader(in), id, yield)
			} else {
				err = decodeStream(iotest.OneByteReader(bytes.NewReader(in)), id, yield)
			}
			fmt.Fprintf(&b, "end: %v", err)
			return b.String()
		}
		if a, b := outcome(true), outcome(false); a != b {
			t.Fatalf("outcome depends on read sizes:\n%s\n---\n%s", a, b)
		}
	})
}

// FuzzConvertSchema checks that no tool schema makes the conversion panic
// or loop.
func FuzzConvertSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"$ref":"#/$defs/B"}},"$defs":{"B":{"allOf":[{"$ref":"#"}]}}}`,
		`{"type":"object","properties":{"x":{"items":[{"const":1}],"oneOf":[1,{}]}},"required":[1,"x"]}`,
		`{"properties":{"p":{"$ref":"#/properties/p"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = convertSchema(in)
	})
}
