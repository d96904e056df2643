package scheduler

import (
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// mcpLikeSchema is shaped like the schemas MCP servers generate from typed
// functions: $defs and $ref, an optional field as anyOf with null, an enum
// and an array of objects.
const mcpLikeSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"Item": {
			"type": "object",
			"properties": {"name": {"type": "string", "minLength": 1}, "qty": {"type": "integer", "minimum": 0}},
			"required": ["name"]
		}
	},
	"properties": {
		"query": {"type": "string"},
		"mode": {"enum": ["fast", "full"]},
		"limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
		"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}
	},
	"required": ["query"],
	"additionalProperties": false
}`

// BenchmarkValidate measures argument validation against a cached schema:
// ply's own kind of schema and an MCP-shaped one, with valid arguments and
// with the common mistakes (a missing field, a wrong type).
func BenchmarkValidate(b *testing.B) {
	reg := tools.NewRegistry(
		&fakeTool{name: "read_file", kind: tools.KindRead, schema: readSchema},
		&fakeTool{name: "mcp__srv__search", kind: tools.KindRead, schema: mcpLikeSchema},
	)
	s := New(reg)
	cases := []struct{ name, tool, args string }{
		{"builtin-valid", "read_file", `{"path": "internal/scheduler/validate.go", "limit": 200, "opts": {"n": 3}}`},
		{"builtin-missing", "read_file", `{"limit": 200}`},
		{"builtin-wrong-type", "read_file", `{"path": "a", "limit": "200"}`},
		{"mcp-valid", "mcp__srv__search", `{"query": "q", "mode": "fast", "limit": null, "items": [{"name": "a", "qty": 1}, {"name": "b"}]}`},
		{"mcp-invalid", "mcp__srv__search", `{"query": "q", "items": [{"qty": -1}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			t, ok := reg.Lookup(c.tool)
			if !ok {
				b.Fatal("no tool")
			}
			s.validate(t, c.args) // compile once, outside the loop
			b.ReportAllocs()
			for b.Loop() {
				s.validate(t, c.args)
			}
		})
	}
}
