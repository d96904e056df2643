package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNumericStringParams: integer and number parameters given as
// numeric strings ("limit": "50") work as the numbers would, in every
// tool; a string that is no number is still refused.
func TestNumericStringParams(t *testing.T) {
	root, ws := searchTestWorkspace(t, map[string]string{"a.txt": "one\ntwo\nthree\nfour\n"})
	_ = root
	res := searchTestRun(t, NewReadFile(ws), `{"file_path": "a.txt", "offset": "1", "limit": " 2 "}`)
	if res.IsError || !strings.Contains(res.Output, numberPrefix(2)+"two\n"+numberPrefix(3)+"three") || strings.Contains(res.Output, "four") {
		t.Errorf("read_file: %+v", res)
	}
	res = searchTestRun(t, NewGrep(ws), `{"pattern": "three", "context": "1", "limit": "3"}`)
	if res.IsError || !strings.Contains(res.Output, "two") || !strings.Contains(res.Output, "four") {
		t.Errorf("grep_search: %+v", res)
	}
	sh := NewShell(ws)
	t.Cleanup(func() { sh.Close() })
	res = searchTestRun(t, sh, `{"command": "echo hi", "timeout": "5000.5"}`)
	if res.IsError || !strings.Contains(res.Output, "hi") {
		t.Errorf("run_shell_command: %+v", res)
	}
	for bad, says := range map[string]string{
		`{"file_path": "a.txt", "limit": "ten"}`:              `limit must be an integer, got "ten"`,
		`{"file_path": "a.txt", "offset": "1", "limit": "x"}`: `limit must be an integer, got "x"`,
		`{"file_path": "a.txt", "limit": "0"}`:                "limit must be 1 or more",
	} {
		if res := searchTestRun(t, NewReadFile(ws), bad); !res.IsError || res.ErrorType != "INVALID_TOOL_PARAMS" || !strings.Contains(res.Output, says) {
			t.Errorf("read_file %s: %+v", bad, res)
		}
	}
}

// TestSchemasAcceptNumericStrings: every integer or number parameter of
// the tools here lets a numeric string through the schema check, so that
// the decoding above gets to see it.
func TestSchemasAcceptNumericStrings(t *testing.T) {
	_, ws := searchTestWorkspace(t, nil)
	sh := NewShell(ws)
	t.Cleanup(func() { sh.Close() })
	for _, tool := range []Tool{NewReadFile(ws), NewGrep(ws), sh, NewTaskOutput(sh)} {
		var s struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatalf("%s: %v", tool.Name(), err)
		}
		for name, p := range s.Properties {
			types, _ := p.Type.([]any)
			num := p.Type == "integer" || p.Type == "number"
			for _, ty := range types {
				num = num || ty == "integer" || ty == "number"
			}
			if !num {
				continue
			}
			hasString := false
			for _, ty := range types {
				hasString = hasString || ty == "string"
			}
			if !hasString {
				t.Errorf("%s.%s: type %v; want a string allowed", tool.Name(), name, p.Type)
			}
		}
	}
}

// TestShellConcurrencySafeWithQuotedTimeout: a read-only command stays
// safe to run alongside others when its timeout is quoted.
func TestShellConcurrencySafeWithQuotedTimeout(t *testing.T) {
	_, ws := searchTestWorkspace(t, nil)
	sh := NewShell(ws)
	t.Cleanup(func() { sh.Close() })
	if !sh.ConcurrencySafe(json.RawMessage(`{"command": "ls", "timeout": "5000"}`)) {
		t.Error("ls with a quoted timeout is not concurrency-safe")
	}
}
