package scheduler

import (
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

const readSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string"},
		"limit": {"type": "integer"},
		"opts": {"type": "object", "properties": {"n": {"type": "integer"}}}
	},
	"required": ["path"],
	"additionalProperties": false
}`

func validationRegistry() *tools.Registry {
	return tools.NewRegistry(
		&fakeTool{name: "read_file", kind: tools.KindRead, schema: readSchema},
		&fakeTool{name: "write_file", kind: tools.KindEdit},
		&fakeTool{name: "list_directory", kind: tools.KindRead, schema: `{"type":"object","properties":{"dir":{"type":"string"}}}`},
	)
}

// TestImmediateErrors checks each way a call fails before it runs, and the
// exact content of what the model is told.
func TestImmediateErrors(t *testing.T) {
	disableWrite := policyFunc{enabled: func(name string) (bool, string) {
		return name != "write_file", "writes are off in this project"
	}}
	denyWrite := policyFunc{check: func(c *Call) (Verdict, string) {
		if c.Name == "write_file" {
			return VerdictDeny, "read-only session"
		}
		return VerdictAllow, ""
	}}
	tests := []struct {
		name      string
		policy    Policy
		req       Request
		errorType string
		contains  []string
	}{
		{"disabled tool", disableWrite, Request{Name: "write_file", Args: `{"tag":"x"}`},
			ErrorTypeExecutionDenied, []string{`Tool "write_file" is disabled`, "Reason: writes are off in this project"}},
		{"disabled beats not registered", policyFunc{enabled: func(string) (bool, string) { return false, "" }}, Request{Name: "nope"},
			ErrorTypeExecutionDenied, []string{`Tool "nope" is disabled`}},
		{"misspelled tool", YOLO{}, Request{Name: "reed_file"},
			ErrorTypeToolNotRegistered, []string{`Tool "reed_file" not found`, `Did you mean "read_file"?`}},
		{"prefix of a tool", YOLO{}, Request{Name: "list"},
			ErrorTypeToolNotRegistered, []string{`Did you mean "list_directory"?`}},
		{"unknown tool lists tools", YOLO{}, Request{Name: "teleport"},
			ErrorTypeToolNotRegistered, []string{"Available tools: read_file, write_file, list_directory."}},
		{"truncated edit", YOLO{}, Request{Name: "write_file", Args: `{"tag":"x"}`, WasOutputTruncated: true},
			ErrorTypeOutputTruncated, []string{"cut off at the output token limit", "arguments may be incomplete", "smaller pieces"}},
		{"bad JSON", YOLO{}, Request{Name: "read_file", Args: `{"path": }`},
			ErrorTypeInvalidParams, []string{`Invalid arguments for tool "read_file": not valid JSON`, "at byte offset 10", `near "{\"path\": }"`}},
		{"JSON cut short", YOLO{}, Request{Name: "read_file", Args: `{"path": "a`},
			ErrorTypeInvalidParams, []string{"the text ends at byte offset 11 before the JSON value is complete"}},
		{"text after JSON", YOLO{}, Request{Name: "read_file", Args: `{"path":"a"} {}`},
			ErrorTypeInvalidParams, []string{"unexpected text after the JSON object at byte offset 13"}},
		{"not an object", YOLO{}, Request{Name: "read_file", Args: `["a"]`},
			ErrorTypeInvalidParams, []string{"the arguments must be a JSON object, got an array"}},
		{"missing required", YOLO{}, Request{Name: "read_file", Args: `{"limit": 3}`},
			ErrorTypeInvalidParams, []string{`missing required parameter "path"`}},
		{"empty args are {}", YOLO{}, Request{Name: "read_file", Args: ""},
			ErrorTypeInvalidParams, []string{`missing required parameter "path"`}},
		{"wrong type", YOLO{}, Request{Name: "read_file", Args: `{"path": 7}`},
			ErrorTypeInvalidParams, []string{`parameter "path" must be string, got number`}},
		{"integer wanted", YOLO{}, Request{Name: "read_file", Args: `{"path": "a", "limit": 1.5}`},
			ErrorTypeInvalidParams, []string{`parameter "limit" must be integer, got number`}},
		{"nested field", YOLO{}, Request{Name: "read_file", Args: `{"path": "a", "opts": {"n": "x"}}`},
			ErrorTypeInvalidParams, []string{`parameter "opts.n" must be integer, got string`}},
		{"unknown field", YOLO{}, Request{Name: "read_file", Args: `{"path": "a", "bogus": 1}`},
			ErrorTypeInvalidParams, []string{`unknown parameter "bogus"`}},
		{"policy denies", denyWrite, Request{Name: "write_file", Args: `{"tag":"x"}`},
			ErrorTypeExecutionDenied, []string{`Execution of tool "write_file" was denied`, "Reason: read-only session"}},
		{"needs approval, nobody to ask", nil, Request{Name: "write_file", Args: `{"tag":"x"}`},
			ErrorTypeExecutionDenied, []string{`Tool "write_file" needs the user's approval`, "Retrying will not help", "git status", "approval mode or a permission rule"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.CallID = "id1"
			calls := mustRun(t, New(validationRegistry(), WithPolicy(tt.policy)), tt.req)
			c := calls[0]
			resp := c.Response()
			if c.State() != StateError || c.ErrorType() != tt.errorType || !resp.IsError || resp.ID != "id1" {
				t.Fatalf("state %s type %q resp %+v; want error %q", c.State(), c.ErrorType(), resp, tt.errorType)
			}
			if !strings.HasPrefix(resp.Output, "Error: ") {
				t.Errorf("output %q lacks the Error: prefix", resp.Output)
			}
			for _, want := range tt.contains {
				if !strings.Contains(resp.Output, want) {
					t.Errorf("output %q\n lacks %q", resp.Output, want)
				}
			}
			if strings.Contains(resp.Output, "Stop retrying") {
				t.Errorf("first error already carries the retry hint: %q", resp.Output)
			}
		})
	}
}

func TestValidCallsRun(t *testing.T) {
	tests := []struct {
		name, tool, args string
		truncated        bool
		params           string
	}{
		{"empty args mean {}", "list_directory", "", false, "{}"},
		{"blank args mean {}", "list_directory", "  \n", false, "{}"},
		{"valid args pass through", "read_file", ` {"path": "a", "limit": 3} `, false, `{"path": "a", "limit": 3}`},
		{"truncation only stops edits", "read_file", `{"path": "a"}`, true, `{"path": "a"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := mustRun(t, New(validationRegistry()), Request{CallID: "1", Name: tt.tool, Args: tt.args, WasOutputTruncated: tt.truncated})
			if c := calls[0]; c.State() != StateSuccess || string(c.Params) != tt.params {
				t.Errorf("state %s params %q output %q; want success with %q", c.State(), c.Params, c.Response().Output, tt.params)
			}
		})
	}
}

// TestValidationRetryHint: the 3rd identical error tells the model to stop;
// the 2nd does not; a valid call starts the count again.
func TestValidationRetryHint(t *testing.T) {
	s := New(validationRegistry(), WithPolicy(YOLO{}))
	bad := Request{CallID: "b", Name: "read_file", Args: `{"limit": 1}`}
	truncated := Request{CallID: "t", Name: "write_file", Args: `{"tag":"x"}`, WasOutputTruncated: true}
	hint := func(r Request) bool {
		t.Helper()
		return strings.Contains(mustRun(t, s, r)[0].Response().Output, "Stop retrying the same call")
	}
	for i, want := range []bool{false, false, true, true} {
		if got := hint(bad); got != want {
			t.Errorf("attempt %d: hint = %v, want %v", i+1, got, want)
		}
	}
	if out := mustRun(t, s, bad)[0].Response().Output; !strings.Contains(out, "occurred 5 times") {
		t.Errorf("5th attempt should count 5: %q", out)
	}
	mustRun(t, s, Request{CallID: "g", Name: "read_file", Args: `{"path":"a"}`})
	if hint(bad) {
		t.Error("a valid call should reset the count")
	}
	// A different message is counted on its own.
	other := Request{CallID: "o", Name: "read_file", Args: `{"path": 1}`}
	first, second, third := hint(other), hint(other), hint(other)
	if first || second || !third {
		t.Error("a different error should get its hint on its own 3rd occurrence")
	}
	// Truncated edits are counted too.
	first, second, third = hint(truncated), hint(truncated), hint(truncated)
	if first || second || !third {
		t.Error("OUTPUT_TRUNCATED should get the hint on the 3rd occurrence")
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"read_file", "write_file", "edit", "glob", "grep_search", "run_shell_command", "list_directory"}
	tests := []struct {
		name string
		want []string
	}{
		{"read_fil", []string{"read_file"}},
		{"Read-File", []string{"read_file"}},
		{"rite_file", []string{"write_file", "read_file"}},
		{"run_shell", []string{"run_shell_command"}},
		{"grep", []string{"grep_search"}},
		{"xyzzy", nil},
	}
	for _, tt := range tests {
		got := suggest(tt.name, names)
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("suggest(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSchemaMessages: what the model is told for the keywords the
// pre-pass covers, and for one it leaves to the library.
func TestSchemaMessages(t *testing.T) {
	tests := []struct {
		name, schema, args, want string
	}{
		{"enum", `{"type":"object","properties":{"mode":{"enum":["fast","full"]}}}`, `{"mode":"slow"}`,
			`parameter "mode" must be one of "fast", "full", got "slow"`},
		{"const", `{"type":"object","properties":{"v":{"const":2}}}`, `{"v":3}`,
			`parameter "v" must be 2, got 3`},
		{"optional as anyOf with null", `{"type":"object","properties":{"limit":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}`, `{"limit":"ten"}`,
			`parameter "limit" must be integer or null, got string`},
		{"type list", `{"type":"object","properties":{"v":{"type":["string","array"]}}}`, `{"v":true}`,
			`parameter "v" must be string or array, got boolean`},
		{"$ref into $defs", `{"type":"object","$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"properties":{"ps":{"type":"array","items":{"$ref":"#/$defs/P"}}}}`,
			`{"ps":[{"x":1},{"y":2}]}`, `missing required parameter "ps.1.x"`},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"N":{"type":"integer"}},"properties":{"n":{"$ref":"#/definitions/N","type":"string"}}}`,
			`{"n":"x"}`, `parameter "n" must be integer, got string`},
		{"minimum", `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, `{"n":0}`,
			`parameter "n" must be at least 1, got 0`},
		{"exclusiveMaximum", `{"type":"object","properties":{"n":{"type":"number","exclusiveMaximum":1.5}}}`, `{"n":1.5}`,
			`parameter "n" must be less than 1.5, got 1.5`},
		{"draft-04 exclusiveMinimum", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}`, `{"n":0}`,
			`parameter "n" must be greater than 0, got 0`},
		{"minLength", `{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`, `{"s":""}`,
			`parameter "s" must be at least 1 character long, got 0`},
		{"pattern", `{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}}}`, `{"id":"A1"}`,
			`parameter "id" must match the regular expression "^[a-z]+$", got "A1"`},
		{"maxItems", `{"type":"object","properties":{"l":{"type":"array","maxItems":1}}}`, `{"l":[1,2]}`,
			`parameter "l" must have at most 1 item, got 2`},
		{"prefixItems", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}}}`, `{"p":["a","b"]}`,
			`parameter "p.1" must be integer, got string`},
		{"nested unknown", `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{}},"additionalProperties":false}}}`, `{"o":{"b":1}}`,
			`unknown parameter "o.b" ("o" takes "a")`},
		{"property not allowed", `{"type":"object","properties":{"x":false}}`, `{"x":1}`,
			`parameter "x" is not allowed`},
		{"allOf", `{"type":"object","allOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`,
			`missing required parameter "a"; missing required parameter "b"`},
		{"oneOf, none", `{"type":"object","properties":{"x":{"oneOf":[{"type":"string","maxLength":1},{"type":"object","required":["k"]}]}}}`, `{"x":"ab"}`,
			`parameter "x" matches none of the 2 allowed forms: (1) parameter "x" must be at most 1 character long, got 2; (2) parameter "x" must be object, got string`},
		{"left to the library: oneOf, both", `{"type":"object","properties":{"x":{"oneOf":[{"type":"string"},{"maxLength":5}]}}}`, `{"x":"ab"}`,
			`parameter "x": matches more than one of the allowed forms, and must match exactly one (oneOf)`},
		{"left to the library: uniqueItems", `{"type":"object","properties":{"t":{"type":"array","uniqueItems":true}}}`, `{"t":[1,1]}`,
			`parameter "t": must not contain equal items`},
		{"left to the library: multipleOf", `{"type":"object","properties":{"n":{"multipleOf":2}}}`, `{"n":3}`,
			`parameter "n": multipleOf: 3 is not a multiple of 2`},
		{"unknown $schema validated as 2020-12", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","required":["a"]}`, `{}`,
			`missing required parameter "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tools.NewRegistry())
			_, msg := s.validate(&fakeTool{name: "t", schema: tt.schema}, tt.args)
			if want := `Invalid arguments for tool "t": ` + tt.want; !strings.HasPrefix(msg, want) {
				t.Errorf("message %q\n    want %q", msg, want)
			}
		})
	}
}

// TestExternalSchemaFallback: a schema from an MCP server that cannot be
// compiled leaves the tool callable with any object; the same schema on one
// of ply's own tools is a bug, said so.
func TestExternalSchemaFallback(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"https://example.invalid/a.json"}}}`,
		`{"type":"object","properties":{"a":{"type":"str"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=x)"}}}`,
		`{"type":"object","required":"a"}`,
		`{"$schema":"http://json-schema.org/draft-03/schema#","type":"object","properties":{"a":{"required":true}}}`,
		`"not a schema"`,
	} {
		s := New(tools.NewRegistry())
		if params, msg := s.validate(&fakeTool{name: "mcp__srv__t", schema: schema}, `{"a":1}`); msg != "" || string(params) != `{"a":1}` {
			t.Errorf("%s: MCP tool: %q", schema, msg)
		}
		if _, msg := s.validate(&fakeTool{name: "mcp__srv__t", schema: schema}, `[1]`); !strings.Contains(msg, "must be a JSON object") {
			t.Errorf("%s: MCP tool, array arguments: %q", schema, msg)
		}
		if _, msg := s.validate(&fakeTool{name: "read_file", schema: schema}, `{"a":1}`); !strings.Contains(msg, "its parameter schema is invalid") || !strings.Contains(msg, "bug in ply") {
			t.Errorf("%s: own tool: %q", schema, msg)
		}
	}
}

// TestRefCycle: references that loop without consuming the arguments must
// not recurse for ever (the library would overflow the stack).
func TestRefCycle(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","$ref":"#"}`,
		`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a","required":["x"]}`,
	} {
		s := New(tools.NewRegistry())
		_, msg := s.validate(&fakeTool{name: "t", schema: schema}, `{"y":1}`)
		if strings.Contains(schema, "required") != strings.Contains(msg, `missing required parameter "x"`) {
			t.Errorf("%s: %q", schema, msg)
		}
	}
	// A recursive schema that does consume the arguments is fine.
	tree := `{"type":"object","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}},"v":{"type":"integer"}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`
	_, msg := New(tools.NewRegistry()).validate(&fakeTool{name: "t", schema: tree}, `{"root":{"kids":[{"kids":[{"v":"x"}]}]}}`)
	if !strings.Contains(msg, `parameter "root.kids.0.kids.0.v" must be integer, got string`) {
		t.Errorf("tree: %q", msg)
	}
}

// TestSchemaCacheRecompiles: a tool re-registered under the same name with
// another schema is validated against the new one.
func TestSchemaCacheRecompiles(t *testing.T) {
	s := New(tools.NewRegistry())
	if _, msg := s.validate(&fakeTool{name: "t", schema: `{"type":"object","required":["a"]}`}, `{}`); msg == "" {
		t.Fatal("first schema not applied")
	}
	if _, msg := s.validate(&fakeTool{name: "t", schema: `{"type":"object"}`}, `{}`); msg != "" {
		t.Fatalf("stale schema: %q", msg)
	}
}
