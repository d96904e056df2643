package tools

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestEditDiagnostics: when old_string matches nowhere, the error names
// the closest region and how it differs; when it matches several places,
// their line numbers.
func TestEditDiagnostics(t *testing.T) {
	goFile := "package a\n\nfunc f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 2\n}\n"
	for _, tc := range []struct {
		name, content, old string
		want               []string
	}{
		{"spaces where the file has tabs", goFile, "    if x {\n        return 1\n    }",
			[]string{"lines 4-6", "tabs", "spaces", "     5\t\t\treturn 1"}},
		{"tabs where the file has spaces", "def f():\n    return 1\n", "def f():\n\treturn 1",
			[]string{"lines 1-2", "spaces", "tabs"}},
		{"deeper indentation", goFile, "\t\tif x {\n\t\t\treturn 1", []string{"lines 4-5", "indentation"}},
		{"a line the file does not have", goFile, "\tif x {\n\t\tlog()\n\t\treturn 1\n\t}",
			[]string{"Lines 4-6", "line 2 of old_string", "log()", "not in the file"}},
		{"a line old_string lacks", goFile, "func f() {\n\t\treturn 1\n\t}",
			[]string{"Lines 3-6", "line 4 of the file", "if x {", "missing from old_string"}},
		{"one line differs", goFile, "\tif y {\n\t\treturn 1\n\t}",
			[]string{"lines 4-6", "line 4", "     4\t\tif x {"}},
		{"nothing close", goFile, "completely unrelated\ntext here", []string{"Nothing in the file is close"}},
	} {
		_, _, err := applyEdit(tc.content, tc.old, "NEW", false)
		if !errors.Is(err, errEditNoMatch) {
			t.Errorf("%s: err = %v, want a no-match error", tc.name, err)
			continue
		}
		msg := editErrorResult("f.go", err).Output
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", tc.name, w, msg)
			}
		}
	}
}

func TestEditDiagnosticsCRLFAndMatches(t *testing.T) {
	// A CRLF file is matched with plain newlines already; a file that
	// mixes endings shows the difference.
	mixed := "a\r\nb\nc\r\n"
	_, _, err := applyEdit(mixed, "a\nb\r\nc", "x", false)
	if msg := editErrorResult("m.txt", err).Output; !strings.Contains(msg, "line endings") {
		t.Errorf("mixed endings not explained:\n%s", msg)
	}

	_, _, err = applyEdit("x := 1\ny\nx := 1\nz\nx := 1\n", "x := 1", "x := 2", false)
	msg := editErrorResult("f.go", err).Output
	if !strings.Contains(msg, "3 places") || !strings.Contains(msg, "lines 1, 3 and 5") {
		t.Errorf("several matches without their lines:\n%s", msg)
	}
}

// FuzzEditDiagnose: the diagnosis of any miss names a region that exists
// or says nothing is close, and never panics.
func FuzzEditDiagnose(f *testing.F) {
	f.Add("a\n\tb\nc\n", "a\n    b\nc")
	f.Add("x\r\ny\nz\r\n", "x\ny\r\nz")
	f.Add("", "q")
	f.Add("\n\n\n", "\n\n")
	f.Fuzz(func(t *testing.T, body, old string) {
		hint := diagnoseNoMatch(body, old)
		if hint == "" {
			t.Fatal("empty diagnosis")
		}
		lines := strings.Count(body, "\n") + 1
		for _, l := range strings.Split(hint, "\n")[1:] {
			var n int
			if _, err := fmt.Sscanf(strings.TrimLeft(l, " "), "%d\t", &n); err == nil && (n < 1 || n > lines) {
				t.Fatalf("quotes line %d of a %d-line file:\n%s", n, lines, hint)
			}
		}
	})
}
