package tools

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestApplyEdit(t *testing.T) {
	cases := []struct {
		name         string
		content      string
		old, new     string
		all          bool
		want         string
		count        int
		err          error // errEdit* sentinel, or nil
		countErr     int   // expected editCountError.count
		wantTolerant bool
	}{
		{name: "exact", content: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n", count: 1},
		{name: "multi-line", content: "func f() {\n\treturn 1\n}\n", old: "\treturn 1\n}", new: "\treturn 2\n}", want: "func f() {\n\treturn 2\n}\n", count: 1},
		{name: "dollar literal", content: "x = 1\n", old: "1", new: "$1 $$ ${x} $0", want: "x = $1 $$ ${x} $0\n", count: 1},
		{name: "no match", content: "abc", old: "xyz", new: "q", err: errEditNoMatch},
		{name: "ambiguous", content: "x x x", old: "x", new: "y", countErr: 3},
		{name: "replace all", content: "x x x", old: "x", new: "yy", all: true, want: "yy yy yy", count: 3},
		{name: "replace all non-overlapping", content: "aaaa", old: "aa", new: "b", all: true, want: "bb", count: 2},
		{name: "overlapping occurrences are ambiguous", content: "aaa", old: "aa", new: "b", countErr: 2},
		{name: "overlapping tolerant occurrences are ambiguous", content: "“““", old: `""`, new: "b", countErr: 2},
		{name: "replace all single", content: "x y", old: "x", new: "z", all: true, want: "z y", count: 1},
		{name: "identical", content: "abc", old: "b", new: "b", err: errEditNoChange},
		{name: "empty old on empty", content: "", old: "", new: "hello\n", want: "hello\n", count: 1},
		{name: "empty old on content", content: "x", old: "", new: "y", err: errEditEmptyOld},
		{name: "delete", content: "keep\ndrop\nkeep\n", old: "drop\n", new: "", want: "keep\nkeep\n", count: 1},

		{name: "crlf converts old and new", content: "a\r\nb\r\nc\r\n", old: "a\nb\n", new: "x\ny\nz\n", want: "x\r\ny\r\nz\r\nc\r\n", count: 1},
		{name: "crlf old already crlf", content: "a\r\nb\r\n", old: "a\r\nb", new: "q\nr", want: "q\r\nr\r\n", count: 1},
		{name: "crlf no-op after conversion", content: "a\r\nb\r\n", old: "a\nb", new: "a\r\nb", err: errEditNoChange},
		{name: "never split crlf", content: "a\r\nb", old: "a\r", new: "x", err: errEditNoMatch},
		{name: "lf file keeps lf", content: "a\nb\n", old: "a\nb", new: "x\ny", want: "x\ny\n", count: 1},
		{name: "bom kept", content: "\uFEFFhello\nworld\n", old: "hello", new: "bye", want: "\uFEFFbye\nworld\n", count: 1},
		{name: "bom sent by model ignored", content: "\uFEFFhello", old: "\uFEFFhello", new: "\uFEFFbye", want: "\uFEFFbye", count: 1},
		{name: "bom with crlf", content: "\uFEFFa\r\nb\r\n", old: "a\nb", new: "c\nd", want: "\uFEFFc\r\nd\r\n", count: 1},

		{name: "curly quotes in file", content: "say “hi” and ‘bye’\n", old: `say "hi" and 'bye'`, new: `say "yo"`, want: "say \"yo\"\n", count: 1, wantTolerant: true},
		{name: "curly quotes in old", content: `x := "a"` + "\n", old: "x := “a”", new: `x := "b"`, want: "x := \"b\"\n", count: 1, wantTolerant: true},
		{name: "dashes", content: "range 1–5 — done", old: "1-5 - done", new: "1-6", want: "range 1-6", count: 1, wantTolerant: true},
		{name: "nbsp", content: "a\u00a0b c", old: "a b c", new: "abc", want: "abc", count: 1, wantTolerant: true},
		{name: "trailing spaces in file", content: "foo  \nbar\t\nbaz\n", old: "foo\nbar\n", new: "qux\n", want: "qux\nbaz\n", count: 1, wantTolerant: true},
		{name: "trailing spaces in old", content: "foo\nbar\n", old: "foo   \nbar", new: "x", want: "x\n", count: 1, wantTolerant: true},
		{name: "trailing space in old at line end takes file's run", content: "“q”  \nz", old: `"q" `, new: "Q", want: "Q\nz", count: 1, wantTolerant: true},
		{name: "trailing space in old mid-line", content: "“q” rest", old: `"q" `, new: "Q ", want: "Q rest", count: 1, wantTolerant: true},
		{name: "trailing space must not match inside a word", content: "“q”x", old: `"q" `, new: "Q", err: errEditNoMatch},
		{name: "tolerant ambiguous", content: "“a” “a”", old: `"a"`, new: "b", countErr: 2},
		{name: "tolerant replace all", content: "“a” and “a”", old: `"a"`, new: "b", all: true, want: "b and b", count: 2, wantTolerant: true},
		{name: "tolerant crlf trailing ws", content: "x = 1;  \r\ny = 2;\r\n", old: "x = 1;\ny = 2;", new: "z\nw", want: "z\r\nw\r\n", count: 1, wantTolerant: true},
		{name: "whitespace-only old does not match everywhere", content: "a\nb", old: "  ", new: "x", err: errEditNoMatch},
		{name: "tolerant identical result", content: "“a”", old: `"a"`, new: "“a”", err: errEditNoChange},
		{name: "exact preferred over tolerant", content: "\"a\" “a”", old: `"a"`, new: "b", want: "b “a”", count: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := matchEdit(c.content, c.old, c.new, c.all)
			var ce *editCountError
			switch {
			case c.countErr > 0:
				if !errors.As(err, &ce) || ce.count != c.countErr {
					t.Fatalf("err = %v, want %d matches", err, c.countErr)
				}
				return
			case c.err != nil:
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if o.content != c.want || o.count != c.count {
				t.Errorf("got %q (%d), want %q (%d)", o.content, o.count, c.want, c.count)
			}
			if o.tolerant != c.wantTolerant {
				t.Errorf("tolerant = %v, want %v", o.tolerant, c.wantTolerant)
			}
			got, n, err := applyEdit(c.content, c.old, c.new, c.all)
			if err != nil || got != o.content || n != o.count {
				t.Errorf("applyEdit disagrees with matchEdit: %q %d %v", got, n, err)
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	diffOf := func(content, old, new string, all bool) string {
		t.Helper()
		o, err := matchEdit(content, old, new, all)
		if err != nil {
			t.Fatal(err)
		}
		return unifiedDiff("a/f", "b/f", content, o.content, o.spans)
	}
	ten := numberedLines(10)
	cases := []struct {
		name, got, want string
	}{
		{"one line in the middle", diffOf(ten, "line 5\n", "five\n", false),
			"--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8"},
		{"context trimmed from old_string", diffOf(ten, "line 1\nline 2\nline 3", "line 1\nTWO\nline 3", false),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+TWO\n line 3\n line 4\n line 5"},
		{"insertion", diffOf(ten, "line 10\n", "line 10\nline 11\n", false),
			"--- a/f\n+++ b/f\n@@ -8,3 +8,4 @@\n line 8\n line 9\n line 10\n+line 11"},
		{"deletion joining lines", diffOf("ab\ncd\n", "b\nc", "", false),
			"--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-ab\n-cd\n+ad"},
		{"no newline at end", diffOf("a\nb", "b", "c", false),
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file"},
		{"crlf shown without cr", diffOf("a\r\nb\r\n", "b", "c", false),
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c"},
		{"create", unifiedDiff("/dev/null", "b/f", "", "x\ny\n", []editSpan{{0, 0, 0, 4}}),
			"--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, c.got, c.want)
		}
	}

	// replace_all over lines 1 and 10-19 of 20 lines ("line 1" is a
	// prefix of each): two hunks, consistent with their headers.
	d := diffOf(numberedLines(20), "line 1", "LINE 1", true)
	checkDiffCounts(t, d)
	if strings.Count(d, "\n@@ ") != 2 || !strings.Contains(d, "\n@@ -1,4 +1,4 @@\n-line 1\n+LINE 1\n line 2\n") {
		t.Errorf("want two hunks, the first at line 1:\n%s", d)
	}
	if strings.Count(d, "\n+LINE 1") != 11 || strings.Count(d, "\n-line 1") != 11 {
		t.Errorf("replace_all diff lacks some changes:\n%s", d)
	}
	if !strings.Contains(d, "\n-line 18\n-line 19\n+LINE 10\n") {
		t.Errorf("changes on consecutive lines not shown as one block:\n%s", d)
	}

	// A large replace_all is cut.
	big := strings.Repeat("x\n", 1000)
	d = diffOf(big, "x", "y", true)
	if n := strings.Count(d, "\n"); n > maxDiffLines+1 || !strings.Contains(d, "diff truncated") {
		t.Errorf("big diff has %d lines, not truncated", n)
	}
}

// checkDiffCounts verifies that every hunk's body has as many old and new
// lines as its header says.
func checkDiffCounts(t *testing.T, diff string) {
	t.Helper()
	lines := strings.Split(diff, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("bad diff header: %q", diff)
	}
	parseRange := func(s string) (start, count int) {
		a, b, ok := strings.Cut(s, ",")
		start, _ = strconv.Atoi(a)
		count = 1
		if ok {
			count, _ = strconv.Atoi(b)
		}
		return start, count
	}
	var wantOld, wantNew, gotOld, gotNew int
	flush := func(header string) {
		if header != "" && (gotOld != wantOld || gotNew != wantNew) {
			t.Errorf("hunk %s has %d old and %d new lines\n%s", header, gotOld, gotNew, diff)
		}
	}
	header := ""
	for _, l := range lines[2:] {
		switch {
		case strings.HasPrefix(l, "@@ "):
			flush(header)
			header = l
			var o, n string
			if _, err := fmt.Sscanf(l, "@@ -%s +%s @@", &o, &n); err != nil {
				t.Fatalf("bad hunk header %q: %v", l, err)
			}
			_, wantOld = parseRange(o)
			_, wantNew = parseRange(n)
			gotOld, gotNew = 0, 0
		case strings.HasPrefix(l, " "):
			gotOld++
			gotNew++
		case strings.HasPrefix(l, "-"):
			gotOld++
		case strings.HasPrefix(l, "+"):
			gotNew++
		case strings.HasPrefix(l, `\`), strings.HasPrefix(l, "... (diff truncated"):
		default:
			t.Errorf("unexpected diff line %q", l)
		}
	}
	if !strings.Contains(diff, "diff truncated") {
		flush(header)
	}
}

func FuzzEditMatch(f *testing.F) {
	seeds := []struct {
		content, old, new string
		all               bool
	}{
		{"a\nb\nc\n", "b", "B", false},
		{"x x x", "x", "y", true},
		{"a\r\nb\r\n", "a\nb", "c\nd", false},
		{"\uFEFFhello", "hello", "$1", false},
		{"say “hi”  \nnow", `say "hi"`, "x", false},
		{"1–2 — 3\u00a0", "1-2 - 3 ", "", false},
		{"", "", "new", false},
		{"a\r\nb", "a\r", "x", false},
		{"“q” rest", `"q" `, "Q", true},
	}
	for _, s := range seeds {
		f.Add(s.content, s.old, s.new, s.all)
	}
	f.Fuzz(func(t *testing.T, content, oldStr, newStr string, replaceAll bool) {
		o, err := matchEdit(content, oldStr, newStr, replaceAll)
		got, n, err2 := applyEdit(content, oldStr, newStr, replaceAll)
		if (err == nil) != (err2 == nil) || (err == nil && (got != o.content || n != o.count)) {
			t.Fatalf("applyEdit and matchEdit disagree")
		}
		if err != nil {
			var ce *editCountError
			if !errors.Is(err, errEditNoMatch) && !errors.Is(err, errEditNoChange) && !errors.Is(err, errEditEmptyOld) &&
				!(errors.As(err, &ce) && ce.count > 1 && !replaceAll) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if o.count < 1 || len(o.spans) != o.count || (!replaceAll && o.count != 1) {
			t.Fatalf("count %d, %d spans, replaceAll %v", o.count, len(o.spans), replaceAll)
		}
		if o.content == content {
			t.Fatal("success without a change")
		}
		if strings.HasPrefix(content, utf8BOM) && !strings.HasPrefix(o.content, utf8BOM) {
			t.Fatal("BOM lost")
		}

		// Everything outside the spans is untouched, and each span holds
		// new_string as it was written (after line-ending conversion).
		body := strings.TrimPrefix(content, o.bom)
		res := strings.TrimPrefix(o.content, o.bom)
		wantNew, wantOld := strings.TrimPrefix(newStr, o.bom), strings.TrimPrefix(oldStr, o.bom)
		if usesCRLF(body) {
			wantNew, wantOld = toCRLF(wantNew), toCRLF(wantOld)
		}
		prev, prevNew := 0, 0
		for _, s := range o.spans {
			if s.start < prev || s.end < s.start || s.end > len(body) {
				t.Fatalf("bad span %+v after %d in %d bytes", s, prev, len(body))
			}
			if body[prev:s.start] != res[prevNew:s.newStart] {
				t.Fatalf("text between spans changed")
			}
			if res[s.newStart:s.newEnd] != wantNew {
				t.Fatalf("span holds %q, want %q", res[s.newStart:s.newEnd], wantNew)
			}
			if !o.tolerant && body[s.start:s.end] != wantOld {
				t.Fatalf("exact span covers %q, want %q", body[s.start:s.end], wantOld)
			}
			if o.tolerant {
				got, _, _ := normalizeForMatch(body[s.start:s.end], false)
				want, _, _ := normalizeForMatch(wantOld, false)
				if got != want {
					t.Fatalf("tolerant span %q does not normalise like old_string %q", body[s.start:s.end], wantOld)
				}
			}
			prev, prevNew = s.end, s.newEnd
		}
		if body[prev:] != res[prevNew:] {
			t.Fatal("text after the last span changed")
		}
		if !o.tolerant && !strings.Contains(o.content, wantNew) {
			t.Fatal("exact edit result lacks new_string")
		}

		// A file that uses CRLF throughout keeps doing so.
		if usesCRLF(body) && !hasBareLF(body) && hasBareLF(res) {
			t.Fatalf("bare LF introduced into a CRLF file: %q", res)
		}

		// A unique exact replacement is undone by the reverse edit,
		// provided the result still reads the same way (same BOM and
		// line-ending style) and the inserted new_string is the one
		// occurrence the reverse edit can find (it may have fused with a
		// neighbouring '\r' into a line ending the matcher will not split).
		if !o.tolerant && o.count == 1 && wantNew != "" && wantOld != "" &&
			strings.HasPrefix(o.content, utf8BOM) == (o.bom != "") &&
			usesCRLF(body) == usesCRLF(strings.TrimPrefix(o.content, utf8BOM)) &&
			uniqueAt(res, wantNew, o.spans[0].newStart) {
			back, _, err := applyEdit(o.content, newStr, oldStr, false)
			if err != nil || back != content {
				t.Fatalf("reverse edit gave %q, %v; want %q", back, err, content)
			}
		}

		d := unifiedDiff("a/f", "b/f", body, res, o.spans)
		checkDiffCounts(t, d)
	})
}

// uniqueAt reports whether pat occurs in s exactly once, at i, as the
// matcher sees occurrences.
func uniqueAt(s, pat string, i int) bool {
	found := findExact(s, pat, true, 2)
	return len(found) == 1 && found[0].start == i
}

func hasBareLF(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && (i == 0 || s[i-1] != '\r') {
			return true
		}
	}
	return false
}
