package tools

import (
	"strings"
	"testing"
)

// TestGrepBadRegexpSuggestsEscaping: a pattern that is not a valid
// regular expression is answered with the same pattern escaped, ready to
// search for the text literally.
func TestGrepBadRegexpSuggestsEscaping(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{"a.go": "x := f(a, b)\n"})
	res := searchTestRun(t, NewGrep(ws), map[string]any{"pattern": "f(a, b"})
	if !res.IsError || res.ErrorType != "INVALID_TOOL_PARAMS" {
		t.Fatalf("want INVALID_TOOL_PARAMS, got %+v", res)
	}
	for _, want := range []string{"missing closing )", "escape", `"f\\(a, b"`, "literally"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q: %s", want, res.Output)
		}
	}
	// The suggestion works.
	ok := searchTestRun(t, NewGrep(ws), map[string]any{"pattern": `f\(a, b`})
	if ok.IsError || !strings.Contains(ok.Output, "x := f(a, b)") {
		t.Errorf("escaped pattern: %s", ok.Output)
	}
}
