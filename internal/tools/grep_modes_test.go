package tools

import (
	"strings"
	"testing"
)

// TestGrepKeepsIndentation: a matched line pasted into edit's old_string
// must match the file, so its leading whitespace is kept.
func TestGrepKeepsIndentation(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{
		"a.go": "package a\n\nfunc f() {\n\treturn  nil \n}\n",
	})
	res := grepTestRun(t, ws, map[string]any{"pattern": "return"})
	if !strings.Contains(res.Output, "L4: \treturn  nil\n") {
		t.Errorf("the line lost its indentation (or kept trailing space):\n%s", res.Output)
	}
}

func TestGrepCase(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{"f.txt": "Foo\nfoo\nFOO\n"})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "foo"}, "L2"},
		{map[string]any{"pattern": "Foo"}, "L1"},
		{map[string]any{"pattern": "foo", "case_insensitive": true}, "L1 L2 L3"},
		{map[string]any{"pattern": "(?i)foo"}, "L1 L2 L3"},
	} {
		res := grepTestRun(t, ws, tc.args)
		if got := grepLineNumbers(res.Output); got != tc.want {
			t.Errorf("%v: lines %q, want %q\n%s", tc.args, got, tc.want, res.Output)
		}
	}
}

func grepLineNumbers(out string) string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.IndexByte(l, ':'); strings.HasPrefix(l, "L") && i > 0 {
			got = append(got, l[:i])
		}
	}
	return strings.Join(got, " ")
}

func TestGrepContext(t *testing.T) {
	var sb strings.Builder
	for _, l := range []string{"one", "two", "hit a", "four", "five", "six", "seven", "hit b", "hit c", "ten"} {
		sb.WriteString(l + "\n")
	}
	_, ws := searchTestWorkspace(t, map[string]string{"f.txt": sb.String()})
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"context", map[string]any{"pattern": "hit", "context": 1},
			"L2- two\nL3: hit a\nL4- four\n--\nL7- seven\nL8: hit b\nL9: hit c\nL10- ten\n"},
		{"before", map[string]any{"pattern": "hit a", "before": 2},
			"L1- one\nL2- two\nL3: hit a\n"},
		{"after", map[string]any{"pattern": "hit c", "after": 5},
			"L9: hit c\nL10- ten\n"},
		{"after and before", map[string]any{"pattern": "hit a", "context": 3, "after": 0},
			"L1- one\nL2- two\nL3: hit a\n"},
	} {
		res := grepTestRun(t, ws, tc.args)
		if !strings.Contains(res.Output, "File: f.txt\n"+tc.want+"---") {
			t.Errorf("%s: got\n%s\nwant the block\n%s", tc.name, res.Output, tc.want)
		}
	}
}

func TestGrepFilesAndCountModes(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{
		"b.txt":     "x\nx\n",
		"a.txt":     "x\n",
		"c.txt":     "y\n",
		"sub/d.txt": "x x\nx\nx\n",
	})
	res := grepTestRun(t, ws, map[string]any{"pattern": "x", "output_mode": "files_with_matches"})
	if !strings.Contains(res.Output, "Found 6 matches in 3 files") || !strings.Contains(res.Output, "\na.txt\nb.txt\nsub/d.txt") {
		t.Errorf("files mode:\n%s", res.Output)
	}
	if strings.Contains(res.Output, "L1") || strings.Contains(res.Output, "c.txt") {
		t.Errorf("files mode shows lines or a file without matches:\n%s", res.Output)
	}
	res = grepTestRun(t, ws, map[string]any{"pattern": "x", "output_mode": "count"})
	if !strings.Contains(res.Output, "\na.txt: 1\nb.txt: 2\nsub/d.txt: 3") {
		t.Errorf("count mode:\n%s", res.Output)
	}
	res = grepTestRun(t, ws, map[string]any{"pattern": "x", "output_mode": "lines"})
	if !res.IsError || !strings.Contains(res.Output, "output_mode") {
		t.Errorf("a bad mode is not refused by name:\n%s", res.Output)
	}
}
