package scheduler

import (
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// FuzzValidate feeds schemas and arguments to the validator. Nothing may
// panic, and the pre-pass must be sound: whatever it reports, the library
// rejects too, so the better messages never change what is valid.
func FuzzValidate(f *testing.F) {
	for _, seed := range [][2]string{
		{readSchema, `{"path": "a", "limit": 3, "opts": {"n": 1}}`},
		{readSchema, `{"limit": "x", "bogus": 1}`},
		{mcpLikeSchema, `{"query": "q", "mode": "fast", "limit": null, "items": [{"name": "a", "qty": 1}]}`},
		{mcpLikeSchema, `{"query": 1, "items": [{"qty": -1.5}]}`},
		{`{"type":"object","properties":{"x":{"oneOf":[{"type":"string","pattern":"^a"},{"type":"object","required":["k"]}]}}}`, `{"x":"b"}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"t":{"items":[{"type":"string"}],"additionalItems":false}}}`, `{"t":["a",1]}`},
		{`{"type":"object","patternProperties":{"^x":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, `{"x1":1,"y":2}`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1e2,"exclusiveMaximum":1000}}}`, `{"n":1e400}`},
		{`{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"required":["a"]}}}`, `{"a":0.0}`},
		{`{"type":"object","properties":{"e":{"enum":[1,"1",null,[1],{"a":1}]}}}`, `{"e":1.0}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		// The whole path, as the scheduler runs it, for an own and an MCP tool.
		s := New(tools.NewRegistry())
		s.validate(&fakeTool{name: "t", schema: schema}, args)
		s.validate(&fakeTool{name: "mcp__s__t", schema: schema}, args)

		c, err := compileSchema([]byte(schema))
		if err != nil || c.res == nil {
			return
		}
		v, err := decodeArgs([]byte(args))
		if err != nil {
			return
		}
		v = plainNumbers(v)
		w := walker{c: c}
		w.check(v, c.root, nil, 0)
		if len(w.probs) > 0 && c.libValidate(v) == nil {
			t.Fatalf("the pre-pass reports %q, the library accepts\nschema %s\nargs %s", w.probs[0].msg, schema, args)
		}
	})
}
