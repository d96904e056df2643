package tools

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// grepLowerMatcher is m as it was before the rare-byte prefilter: a
// folded needle is searched in a lowered copy of the buffer.
func grepLowerMatcher(m *grepMatcher) *grepMatcher {
	ref := *m
	if ref.fold {
		ref.find = grepFindLower
	}
	return &ref
}

// grepTestScan scans text as one region and returns every matching line
// and the match count, with no cap on the lines kept.
func grepTestScan(m *grepMatcher, text string) ([]grepLine, int) {
	s := newGrepSearch(m, math.MaxInt)
	w := &grepWorker{buf: make([]byte, len(text)), keep: math.MaxInt, cost: math.MinInt / 2}
	s.scan(w, []byte(text), 1)
	return w.lines, w.count
}

// grepTestNaive returns the numbers of the lines of text that re matches,
// one line at a time, as scan reads lines.
func grepTestNaive(re *regexp.Regexp, text string) []int {
	var got []int
	if text == "" {
		return nil
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if re.MatchString(strings.TrimSuffix(line, "\r")) {
			got = append(got, i+1)
		}
	}
	return got
}

// grepTestCRNeedle reports whether m is an exact needle holding a
// carriage return. scan reports the line of such a needle's hit without
// the expression, though the line it shows lost its final "\r": "o\r"
// matches "foo\r\n". The prefilter keeps that as it was, so the per-line
// references, which trim the "\r" first, do not apply.
func grepTestCRNeedle(m *grepMatcher) bool {
	return m.exact && bytes.IndexByte(m.needle, '\r') >= 0
}

func grepTestLineNumbers(lines []grepLine) []int {
	var ns []int
	for _, l := range lines {
		ns = append(ns, l.n)
	}
	return ns
}

// grepTestRefIndex is the finder's specification: the first occurrence of
// the needle at or after from, in the lowered region when folding.
func grepTestRefIndex(m *grepMatcher, region []byte, from int) int {
	hay := region
	if m.fold {
		hay = make([]byte, len(region))
		for i, b := range region {
			hay[i] = grepLowerTable[b]
		}
	}
	if i := bytes.Index(hay[from:], m.needle); i >= 0 {
		return from + i
	}
	return -1
}

// grepTestCheckFinder compares the finder with grepTestRefIndex: walking
// the region as scan does, and (for short regions) from every position.
func grepTestCheckFinder(t *testing.T, m *grepMatcher, text string) {
	t.Helper()
	if m.needle == nil {
		return
	}
	region := []byte(text)
	w := &grepWorker{buf: make([]byte, len(region))}
	f := newGrepFinder(m, w, region)
	for from := 0; from < len(region); {
		got, want := f.index(w, from), grepTestRefIndex(m, region, from)
		if got != want {
			t.Fatalf("needle %q in %q: walk from %d: index %d, want %d", m.needle, text, from, got, want)
		}
		if got < 0 {
			break
		}
		from = got + 1
	}
	if len(region) > 512 {
		return
	}
	for from := 0; from <= len(region); from++ {
		f := newGrepFinder(m, w, region)
		if got, want := f.index(w, from), grepTestRefIndex(m, region, from); got != want {
			t.Fatalf("needle %q in %q: from %d: index %d, want %d", m.needle, text, from, got, want)
		}
	}
}

// grepTestCompare checks the matcher for pattern on text against the
// lowering matcher and a naive per-line regexp.
func grepTestCompare(t *testing.T, pattern, text string) {
	t.Helper()
	m, err := newGrepMatcher(pattern, true)
	if err != nil {
		t.Fatalf("%q: %v", pattern, err)
	}
	got, gotCount := grepTestScan(m, text)
	want, wantCount := grepTestScan(grepLowerMatcher(m), text)
	if gotCount != wantCount || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%q in %q: got %d %v, lowering matcher %d %v", pattern, text, gotCount, got, wantCount, want)
	}
	if naive := grepTestNaive(m.re, text); !grepTestCRNeedle(m) && (fmt.Sprint(grepTestLineNumbers(got)) != fmt.Sprint(naive) || gotCount != len(naive)) {
		t.Errorf("%q in %q: lines %v, naive %v", pattern, text, grepTestLineNumbers(got), naive)
	}
	grepTestCheckFinder(t, m, text)
}

func TestGrepPrefilterMatchesLowering(t *testing.T) {
	falseHits := strings.Repeat("j", 3000) + "ZJQ\n" + strings.Repeat("jz", 2000) + "\nzjq zJq\n"
	for _, tc := range []struct {
		pattern string
		texts   []string
	}{
		// Mixed case.
		{"HeLLo", []string{"hello\nHELLO\nhElLo world\nhell o\nHELLo", "xhellox", "HHELLLO"}},
		{"handler", []string{"HANDLER\n", "Handler()\nhandleR\nhandle r\n", "hAnDlEr"}},
		// Needles of digits and punctuation only, which have no case.
		{"123", []string{"a123\n12 3\n0123456\n", "123"}},
		{`\) //`, []string{"f(1) // x\n)//\n) //", ") /"}},
		{"::", []string{"a::b\n:\n: :\n::"}},
		{`\(`, []string{"(\n\n(("}},
		{" ", []string{" \n\nx\n x", "\t"}},
		// Letters with digits and punctuation.
		{"x86_64", []string{"X86_64\nx86-64\nlinux-x86_64.tar\n"}},
		{`v2\.0`, []string{"V2.0\nv2x0\nv2.0.1"}},
		// At the region's edges, and regions shorter than the needle.
		{"needle", []string{"needle", "needle\n", "xneedle", "needlex", "NEEDLE", "needl", "eedle", "n", ""}},
		{"ab", []string{"b", "a", "ab", "ba", "aB\n", "\nAb"}},
		{"z", []string{"z", "Z", "\nZ\n", "y"}},
		// Overlapping candidates.
		{"aab", []string{"aaab", "AAAAB\naabaab\n", "aa\nb", "aaa"}},
		{"abab", []string{"ababab", "aBaBAB\nabaab"}},
		// Repeated rare bytes in the needle.
		{"qxq", []string{"qxqxq\nQXQ\nqxxq\nxq"}},
		// Many false candidates: the finder falls back to lowering.
		{"zjq", []string{falseHits}},
		{"jjjq", []string{falseHits, strings.Repeat("JjJ", 2000) + "jJjQ\n"}},
		// Non-ASCII needles and folding outside ASCII.
		{"é", []string{"É\né\ne\n"}},
		{"café", []string{"CAFÉ\ncafé\ncafe\nCafÉ au lait"}},
		{"straße", []string{"STRASSE\nstraße\nSTRAẞE\n"}},
		{"ω", []string{"Ω\nω\nw\n"}},
		{"kelvin", []string{"\u212Aelvin\nKELVIN\nkelvin\nelvin\n"}},
		{"\u212A", []string{"k\nK\n\u212A\n"}},
		{"sun", []string{"ſun\nSUN\nsun\nun\n"}},
		{"ask", []string{"aſ\u212A\nASK\nas\n"}},
		{"ǅ", []string{"Ǆ\nǆ\nǅ\nDZ\n"}},
		{"über", []string{"ÜBER\nuber\nüBer\n"}},
		// Empty lines and carriage returns.
		{"foo", []string{"\n\n\nfoo\n\n", "\n", "\r\n\r\nFOO\r\n\r\n"}},
		{`^$`, []string{"\n\n\nfoo\n\n", "\r\n"}},
		// A needle ending in a carriage return: the same as before (see
		// grepTestCRNeedle).
		{`o\r`, []string{"foo\r\nfoo\r\r\n"}},
		// A needle across lines is only a candidate.
		{`a\nb`, []string{"a\nb\n", "A\nB"}},
		// Regexps with a required literal.
		{`TODO\(\w+\)`, []string{"// todo(me): x\n// TODO(): y\n// ToDo(x)\n"}},
		{`\d{3}\) //`, []string{"f(123) // x\n(12) //\n"}},
		{`func\s+main`, []string{"func  main()\nFUNC\tMAIN\nfuncmain\n"}},
		{`(?-i)Beta`, []string{"beta\nBeta\nBETA\n"}},
		{`a+lpha`, []string{"aaLPHA\nlpha\n"}},
	} {
		for _, text := range tc.texts {
			grepTestCompare(t, tc.pattern, text)
		}
	}

	// The false candidates did make the finder lower the rest.
	m, _ := newGrepMatcher("zjq", true)
	w := &grepWorker{}
	f := newGrepFinder(m, w, []byte(falseHits))
	if m.find != grepFindRare || f.index(w, 0) != 3000 || f.lowered == nil {
		t.Errorf("fallback: find %d, lowered %v", m.find, f.lowered != nil)
	}
}

func TestGrepPrefilterPlan(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		find    grepFind
		rare    byte
	}{
		{"(?-i)Handler", grepFindRaw, 0},
		{`\) //`, grepFindRaw, 0},
		{"123", grepFindRaw, 0},
		{"handler", grepFindRare, 'h'},
		{`TODO\(\w+\)`, grepFindRare, '('},
		{"x86", grepFindRare, '8'},
		{"rare marker", grepFindRare, 'm'},
	} {
		m, err := newGrepMatcher(tc.pattern, true)
		if err != nil {
			t.Fatal(err)
		}
		if m.find != tc.find || (tc.find == grepFindRare && m.rareLo != tc.rare) {
			t.Errorf("%q: find %d rare %q, want %d %q", tc.pattern, m.find, m.rareLo, tc.find, tc.rare)
		}
	}
	// A needle outside ASCII, which grepLiteralNeedle never makes, is
	// searched in the lowered buffer.
	m := &grepMatcher{needle: []byte("é"), fold: true}
	if m.planFind(); m.find != grepFindLower {
		t.Errorf("non-ASCII needle: find %d", m.find)
	}
}

// TestGrepPrefilterBufferBoundaries places matches around the read
// buffer's size, where regions are cut and the buffer grows.
func TestGrepPrefilterBufferBoundaries(t *testing.T) {
	root := t.TempDir()
	for _, n := range []int{grepSniffLen - 3, grepBufSize - 7, grepBufSize - 6, grepBufSize - 1, grepBufSize, grepBufSize + 1, 2*grepBufSize - 3} {
		for _, sep := range []string{"\n", ""} {
			// Filler lines then NEEDLE ending near byte n; and a single
			// line that fills the buffer.
			var sb strings.Builder
			for sb.Len() < n-40 {
				sb.WriteString("filler needl eedle jjjj\n")
			}
			sb.WriteString(strings.Repeat("j", n-6-sb.Len()))
			sb.WriteString("NeEdLe" + sep + "needle")
			long := strings.Repeat("x", n-6) + "needle" + sep + "NEEDLE"
			for i, text := range []string{sb.String(), long} {
				path := filepath.Join(root, fmt.Sprintf("f%d%s%d.txt", n, map[string]string{"\n": "nl", "": ""}[sep], i))
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, pattern := range []string{"needle", "le\nne", `needle$`, "jneedle"} {
					m, err := newGrepMatcher(pattern, true)
					if err != nil {
						t.Fatal(err)
					}
					var out [2]string
					for j, mm := range []*grepMatcher{m, grepLowerMatcher(m)} {
						s := newGrepSearch(mm, grepMaxKept)
						s.searchFile(context.Background(), &grepWorker{}, path, filepath.Base(path))
						out[j] = s.result(pattern, root, nil, walkStats{}).Output
						if j == 0 && s.agg.total != len(grepTestNaive(m.re, text)) {
							t.Errorf("%s %q: %d matches, naive %d", filepath.Base(path), pattern, s.agg.total, len(grepTestNaive(m.re, text)))
						}
					}
					if out[0] != out[1] {
						t.Errorf("%s %q:\n%.500s\nlowering matcher:\n%.500s", filepath.Base(path), pattern, out[0], out[1])
					}
				}
			}
		}
	}
}

func grepTestASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FuzzGrepPrefilter checks a literal search against strings.Contains on
// lowered lines (for ASCII, where ASCII folding is all of it), and
// against the lowering matcher and a per-line regexp for any input.
func FuzzGrepPrefilter(f *testing.F) {
	for _, seed := range [][2]string{
		{"Hello World\nhello\n", "hello"},
		{"f(123) // x\n", ") //"},
		{"aaab\naab", "aab"},
		{"\n\n\r\nX\r\n", "x"},
		{"KELVIN \u212A\nsKip ſkip\n", "k"},
		{"café CAFÉ\n", "CAFÉ"},
		{strings.Repeat("j", 200) + "ZJQ", "zjq"},
		{"a\nb", "a\nb"},
		{"TODO(x) todo", "todo("},
		{"x86_64 X86", "X86_"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, needle string) {
		if needle == "" {
			return // grep_search refuses an empty pattern
		}
		m, err := newGrepMatcher(regexp.QuoteMeta(needle), true)
		if err != nil {
			return // invalid UTF-8 in the needle
		}
		got, count := grepTestScan(m, text)
		gotLines := grepTestLineNumbers(got)
		if grepTestASCII(text) && grepTestASCII(needle) && !grepTestCRNeedle(m) {
			var want []int
			if text != "" {
				for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
					if strings.Contains(strings.ToLower(strings.TrimSuffix(line, "\r")), strings.ToLower(needle)) {
						want = append(want, i+1)
					}
				}
			}
			if fmt.Sprint(gotLines) != fmt.Sprint(want) || count != len(want) {
				t.Fatalf("needle %q in %q: lines %v, strings.Contains %v", needle, text, gotLines, want)
			}
		}
		ref, refCount := grepTestScan(grepLowerMatcher(m), text)
		if fmt.Sprint(got) != fmt.Sprint(ref) || count != refCount {
			t.Fatalf("needle %q in %q: %v, lowering matcher %v", needle, text, got, ref)
		}
		if naive := grepTestNaive(m.re, text); !grepTestCRNeedle(m) && fmt.Sprint(gotLines) != fmt.Sprint(naive) {
			t.Fatalf("needle %q in %q: lines %v, naive %v", needle, text, gotLines, naive)
		}
		grepTestCheckFinder(t, m, text)
	})
}
