package cli

import (
	"encoding/json"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

const answerSchema = `{"type":"object","properties":{"answer":{"type":"integer"},"why":{"type":"string"}},"required":["answer"],"additionalProperties":false}`

func TestJSONSchemaEndsOnFirstValidCall(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.ToolCall("o1", "structured_output", `{"answer":42,"why":"because"}`)})
	r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "json", "--json-schema", answerSchema, "-p", "compute")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var msgs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &msgs); err != nil {
		t.Fatal(err)
	}
	res := msgs[len(msgs)-1]
	so, _ := res["structured_output"].(map[string]any)
	if res["subtype"] != "success" || so["answer"] != float64(42) || len(srv.Requests()) != 1 {
		t.Fatalf("result %v after %d requests", res, len(srv.Requests()))
	}
	// The tool was offered with the user's schema.
	tools, _ := srv.Requests()[0].Body["tools"].([]any)
	found := false
	for _, tl := range tools {
		f := tl.(map[string]any)["function"].(map[string]any)
		if f["name"] == "structured_output" && strings.Contains(mustJSON(f["parameters"]), `"answer"`) {
			found = true
		}
	}
	if !found {
		t.Fatal("structured_output was not offered with the schema")
	}
}

func TestJSONSchemaInvalidAttemptsGoBackToTheModel(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("b1", "structured_output", `{"answer":"forty-two"}`)},
		fp.Turn{fp.ToolCall("b2", "structured_output", `{"why":"no answer"}`)},
		fp.Turn{fp.ToolCall("b3", "structured_output", `{"answer":1,"extra":true}`)},
		fp.Turn{fp.ToolCall("ok", "structured_output", `{"answer":7}`)},
	)
	r := runPly(t, t.TempDir(), srv, "", "-y", "--json-schema", answerSchema, "-p", "compute")
	if r.code != 0 || strings.TrimSpace(r.stdout) != `{"answer":7}` {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	msgs := srv.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text(), "answer") {
		t.Fatalf("the validation error should name the field: %q", last.Text())
	}
}

func TestJSONSchemaEndlessInvalidLoopIsCapped(t *testing.T) {
	var turns []fp.Turn
	for i := 0; i < 3; i++ {
		turns = append(turns, fp.Turn{fp.ToolCall("b"+string(rune('a'+i)), "structured_output", `{"answer":"x`+string(rune('a'+i))+`"}`)})
	}
	srv := fp.New(t, turns...)
	r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "stream-json", "--max-session-turns", "3", "--json-schema", answerSchema, "-p", "compute")
	if r.code != 53 || !strings.Contains(r.stdout, `"subtype":"error_max_turns"`) {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
}

func TestJSONSchemaBadSchema(t *testing.T) {
	for _, s := range []string{`{"type":"array"}`, `not json`, `{"type":"object","properties":{"a":{"type":"nonsense"}}}`, `@missing.json`,
		`{"properties":{"a":{"pattern":"("}}}`, `{"required":"a"}`, `{"properties":{"a":{"$ref":"https://example.invalid/a.json"}}}`,
		`{"properties":{"a":{"$ref":"#/$defs/missing"}}}`} {
		r := runPly(t, t.TempDir(), nil, "", "-y", "--json-schema", s, "-p", "x")
		if r.code != 42 || !strings.Contains(r.stderr, "--json-schema") {
			t.Errorf("%s: exit %d stderr %q", s, r.code, r.stderr)
		}
	}
}

// TestLoadSchema: what a broken schema is told, and that a draft-07 schema
// with references loads.
func TestLoadSchema(t *testing.T) {
	if _, err := loadSchema(`{"properties":{"a":{"type":"nonsense"}}}`, t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), `--json-schema is not a valid JSON Schema: the schema at "/properties/a": "nonsense" is not a JSON Schema type`) {
		t.Errorf("bad type: %v", err)
	}
	ok := `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/n"}}}`
	out, err := loadSchema(ok, t.TempDir())
	if err != nil || !strings.Contains(string(out), `"type":"object"`) {
		t.Errorf("draft-07: %s, %v", out, err)
	}
}
