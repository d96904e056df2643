package tools

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadManyPrefix checks the per-file reader of read_many_files: the
// text stays within the budget, is valid UTF-8, and is a prefix of the
// lines of the input (up to cut long lines).
func FuzzReadManyPrefix(f *testing.F) {
	f.Add("line 1\nline 2\n", 8)
	f.Add("\uFEFFbom\n", 3)
	f.Add("é\xff\xfe\n"+strings.Repeat("x", 3000), 100)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, data string, budget int) {
		if budget < 0 || budget > 1<<20 {
			return
		}
		br := bufio.NewReaderSize(strings.NewReader(data), 16)
		text, lines, more, err := readTextPrefix(context.Background(), br, budget)
		if err != nil {
			t.Fatal(err)
		}
		if len(text) > budget {
			t.Fatalf("text of %d bytes exceeds the budget %d", len(text), budget)
		}
		if !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8: %q", text)
		}
		if lines > strings.Count(text, "\n") {
			t.Fatalf("%d lines reported, %d in text", lines, strings.Count(text, "\n"))
		}
		if !more && utf8.ValidString(data) && !strings.Contains(data, "\uFEFF") && !strings.Contains(text, "[line truncated]") {
			want := data
			if want != "" && !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			if text != want {
				t.Fatalf("whole input %q read as %q", data, text)
			}
		}
	})
}

// FuzzReadManyExclude feeds arbitrary patterns and paths to the filters.
func FuzzReadManyExclude(f *testing.F) {
	f.Add("*_test.go", "src/a_test.go")
	f.Add("testdata", "x/testdata/y")
	f.Add("{a,b", "a")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		fl, r := newReadManyFilter([]string{pattern}, true)
		if r != nil {
			return
		}
		_ = fl.excluded(path)
		_ = fl.defaultExcluded(path)
	})
}
