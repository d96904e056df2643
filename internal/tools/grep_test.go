package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func grepTestRun(t testing.TB, ws *Workspace, args map[string]any) Result {
	t.Helper()
	return searchTestRun(t, NewGrep(ws), args)
}

func TestGrepGroupsByFileInOrder(t *testing.T) {
	root, ws := searchTestWorkspace(t, map[string]string{
		"b.go":        "package b\nfunc Handler() {}\n",
		"a/z.go":      "// handler docs\nx\n\tfunc handler2() {}   \n",
		"a/y.txt":     "nothing here\n",
		"c/d/e.go":    "HANDLER\r\n",
		"vendor/v.go": "handler",
	})
	res := grepTestRun(t, ws, map[string]any{"pattern": "handler", "case_insensitive": true})
	want := fmt.Sprintf(`Found 5 matches for pattern "handler" in %s:
---
File: a/z.go
L1: // handler docs
L3: 	func handler2() {}
---
File: b.go
L2: func Handler() {}
---
File: c/d/e.go
L1: HANDLER
---
File: vendor/v.go
L1: handler
---`, root)
	if res.IsError || res.Output != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Output, want)
	}
	if res.Display != "Found 5 matches" {
		t.Errorf("display %q", res.Display)
	}
	one := grepTestRun(t, ws, map[string]any{"pattern": "package b"})
	if !strings.HasPrefix(one.Output, "Found 1 match for") {
		t.Errorf("singular: %q", one.Output)
	}
}

func TestGrepIgnoredAndBinaryFilesSkipped(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{
		".gitignore":        "*.log\nbuild/\n!important.log\n",
		"src/.gitignore":    "!debug.log\n/local.go\n",
		"src/debug.log":     "needle\n",
		"src/local.go":      "needle\n",
		"src/sub/local.go":  "needle\n", // /local.go is anchored to src
		"src/app.go":        "needle\n",
		"a.log":             "needle\n",
		"important.log":     "needle\n",
		"build/out.txt":     "needle\n",
		".git/config":       "needle\n",
		"data.bin":          "needle\x00\x01\x02\n",
		"late-nul.txt":      strings.Repeat("x", grepSniffLen) + "\x00needle\n", // NUL past the sniff window: text
		"node_modules/m.js": "needle\n",
	})
	res := grepTestRun(t, ws, map[string]any{"pattern": "needle"})
	var files []string
	for _, l := range strings.Split(res.Output, "\n") {
		if f, ok := strings.CutPrefix(l, "File: "); ok {
			files = append(files, f)
		}
	}
	want := []string{"important.log", "late-nul.txt", "node_modules/m.js", "src/app.go", "src/debug.log", "src/sub/local.go"}
	if fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("files %q, want %q\n%s", files, want, res.Output)
	}

	bin := grepTestRun(t, ws, map[string]any{"pattern": "needle", "path": "data.bin"})
	if bin.IsError || !strings.Contains(bin.Output, "binary") {
		t.Errorf("explicit binary file: %+v", bin)
	}
	// A file named explicitly is searched even when ignored.
	if r := grepTestRun(t, ws, map[string]any{"pattern": "needle", "path": "a.log"}); !strings.Contains(r.Output, "File: a.log\nL1: needle") {
		t.Errorf("explicit ignored file: %s", r.Output)
	}
}

func TestGrepPatternsAndCase(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{
		"f.txt": "Foo bar\nfoo BAR\nfunc  main()\nstrings.Kind\nKELVIN \u212A sign\nabc$\n",
	})
	for _, tc := range []struct {
		pattern string
		lines   []string
	}{
		{"foo bar", []string{"L1", "L2"}},   // case-insensitive literal
		{"(?-i)foo", []string{"L2"}},        // case-sensitive on request
		{`func\s+main\(\)`, []string{"L3"}}, // regexp with a literal inside
		{`^s`, []string{"L4"}},              // anchors are per line
		{`BAR$`, []string{"L1", "L2"}},      // $ is the end of the line
		{`\d`, nil},                         // no literal at all
		{"kind", []string{"L4"}},            // "k" stays out of the prefilter needle
		{"kelvin k", []string{"L5"}},        // and still matches it
		{`c\$`, []string{"L6"}},
		{`foo|main`, []string{"L1", "L2", "L3"}}, // alternation: no required literal
	} {
		res := grepTestRun(t, ws, map[string]any{"pattern": tc.pattern, "case_insensitive": true})
		var got []string
		for _, l := range strings.Split(res.Output, "\n") {
			if strings.HasPrefix(l, "L") {
				got = append(got, l[:strings.IndexByte(l, ':')])
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.lines) {
			t.Errorf("%q: lines %q, want %q\n%s", tc.pattern, got, tc.lines, res.Output)
		}
	}
}

// TestGrepMatchesNaiveSearch checks the buffer-level prefilter against a
// per-line regexp over random text, through chunk boundaries.
func TestGrepMatchesNaiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	words := []string{"alpha", "Beta", "GAMMA", "delta", "sKip", "ſkip", "\u212Aey", "key", "x", "  ", "\t", "é", "\r"}
	var sb strings.Builder
	for range 20000 {
		for range rng.IntN(8) {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	}
	text := sb.String()
	_, ws := searchTestWorkspace(t, map[string]string{"big.txt": text})
	for _, pattern := range []string{"beta", "gamma delta", "key", "skip", "a+lpha", "(?-i)Beta", "é x", `^x\s`, `delta\s*$`} {
		re := regexp.MustCompile("(?i)" + pattern)
		want := 0
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if re.MatchString(strings.TrimSuffix(line, "\r")) {
				want++
			}
		}
		m, err := newGrepMatcher(pattern, true)
		if err != nil {
			t.Fatal(err)
		}
		s := newGrepSearch(m, grepMaxKept)
		w := &grepWorker{}
		s.searchFile(context.Background(), w, filepath.Join(ws.Root(), "big.txt"), "big.txt")
		if s.agg.total != want || want == 0 {
			t.Errorf("%q: %d matches, naive %d", pattern, s.agg.total, want)
		}
	}
}

func TestGrepLimitCapAndGlob(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("pkg%02d/f.go", i)] = strings.Repeat("match me please\n", 100)
	}
	files["docs/readme.md"] = "match\n"
	files["docs/notes.txt"] = "match\n"
	_, ws := searchTestWorkspace(t, files)

	res := grepTestRun(t, ws, map[string]any{"pattern": "match", "limit": 3})
	if !strings.HasPrefix(res.Output, "Found 3002 matches") ||
		!strings.Contains(res.Output, "File: docs/notes.txt\nL1: match\n---\nFile: docs/readme.md\nL1: match\n---\nFile: pkg00/f.go\nL1: match me please\n---\n[Showing the first 3 of 3002 matches (limit 3); 2999 omitted.") {
		t.Errorf("limit:\n%s", res.Output)
	}

	res = grepTestRun(t, ws, map[string]any{"pattern": "match"})
	if len(res.Output) > grepMaxOutputChars || len(res.Output) < grepMaxOutputChars-1000 || !strings.Contains(res.Output, "(output capped at 20000 characters)") {
		t.Errorf("cap: %d chars, tail %q", len(res.Output), res.Output[max(0, len(res.Output)-300):])
	}

	for _, tc := range []struct {
		glob    string
		matches int
	}{
		{"*.md", 1},
		{"*.{md,txt}", 2},
		{"docs/*.txt", 1},
		{"pkg0*/**", 1000},
		{"!*.go", 2},
		{"*.rs", 0},
	} {
		res := grepTestRun(t, ws, map[string]any{"pattern": "match", "glob": tc.glob})
		want := fmt.Sprintf("Found %d match", tc.matches)
		if tc.matches == 0 {
			want = "No matches found"
		}
		if !strings.HasPrefix(res.Output, want) || !strings.Contains(res.Output, fmt.Sprintf("(filter: %q)", tc.glob)) {
			t.Errorf("glob %q: want %q\n%.300s", tc.glob, want, res.Output)
		}
	}
}

func TestGrepErrors(t *testing.T) {
	root, ws := searchTestWorkspace(t, map[string]string{"a.txt": "x\n"})
	res := grepTestRun(t, ws, map[string]any{"pattern": "a("})
	if !res.IsError || res.ErrorType != "INVALID_TOOL_PARAMS" || !strings.Contains(res.Output, "missing closing )") {
		t.Errorf("invalid regexp: %+v", res)
	}
	for _, tc := range []struct {
		args    any
		errType string
	}{
		{map[string]any{"pattern": "x", "path": "/"}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"pattern": "x", "path": filepath.Dir(root)}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"pattern": "x", "path": "missing"}, "FILE_NOT_FOUND"},
		{map[string]any{"pattern": "x", "glob": "[bad"}, "INVALID_TOOL_PARAMS"},
		{map[string]any{"pattern": "x", "limit": 0}, "INVALID_TOOL_PARAMS"},
		{map[string]any{"pattern": "x", "limit": 1.5}, "INVALID_TOOL_PARAMS"},
		{map[string]any{"pattern": ""}, "INVALID_TOOL_PARAMS"},
		{`{"pattern": "x", "limit": "ten"}`, "INVALID_TOOL_PARAMS"},
		{`[1,2]`, "INVALID_TOOL_PARAMS"},
	} {
		res := searchTestRun(t, NewGrep(ws), tc.args)
		if !res.IsError || res.ErrorType != tc.errType {
			t.Errorf("%v: got %+v, want %s", tc.args, res, tc.errType)
		}
	}
	none := grepTestRun(t, ws, map[string]any{"pattern": "zzz", "glob": "*.txt"})
	if none.IsError || none.Output != fmt.Sprintf("No matches found for pattern \"zzz\" in %s (filter: \"*.txt\").", root) {
		t.Errorf("no match: %+v", none)
	}
}

func TestGrepHugeFilesAndLongLines(t *testing.T) {
	root, ws := searchTestWorkspace(t, nil)
	path := filepath.Join(root, "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const lines = 300000 // about 9 MB: many buffer refills
	for i := 1; i <= lines; i++ {
		switch i {
		case 1000:
			// Longer than grepMaxLine, with a match inside that is given up.
			w.WriteString("needle" + strings.Repeat("y", grepMaxLine+10) + "\n")
		case 2000:
			// Long but searchable: the buffer grows for it.
			w.WriteString(strings.Repeat("z", 300<<10) + " needle\n")
		case lines:
			w.WriteString("last needle") // no final newline
		default:
			fmt.Fprintf(w, "line %d of filler text\n", i)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res := grepTestRun(t, ws, map[string]any{"pattern": "needle"})
	if !strings.HasPrefix(res.Output, "Found 2 matches") ||
		!strings.Contains(res.Output, "\nL2000: "+strings.Repeat("z", grepMaxLineChars)+" [...]\n") ||
		!strings.Contains(res.Output, fmt.Sprintf("\nL%d: last needle\n", lines)) ||
		!strings.Contains(res.Output, "[1 line(s) longer than 1048576 bytes were not searched.]") {
		t.Errorf("huge file:\n%.2000s", res.Output)
	}
	// Line numbers after the skipped line are right.
	if r := grepTestRun(t, ws, map[string]any{"pattern": `^line 1001 of`}); !strings.Contains(r.Output, "\nL1001: line 1001 of") {
		t.Errorf("after the long line:\n%s", r.Output)
	}
}

func TestGrepCancelled(t *testing.T) {
	_, ws := searchTestWorkspace(t, map[string]string{"a.txt": "x\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewGrep(ws).Execute(ctx, json.RawMessage(`{"pattern":"x"}`), nil); err != context.Canceled {
		t.Errorf("err %v", err)
	}
}

// grepBenchTree builds a tree of Go-like files: 2,000 files of 300 lines.
func grepBenchTree(b *testing.B) *Workspace {
	b.Helper()
	_, ws := searchTestWorkspace(b, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	idents := []string{"ctx", "err", "result", "handler", "config", "value", "index", "buffer", "request", "response"}
	for i := range 2000 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n\n", i%50)
		for j := range 300 {
			a, c := idents[rng.IntN(len(idents))], idents[rng.IntN(len(idents))]
			fmt.Fprintf(&sb, "\t%s := compute%d(%s, %d) // %s\n", a, j, c, rng.IntN(1000), idents[rng.IntN(len(idents))])
		}
		if i%100 == 0 {
			sb.WriteString("\t// TODO(benchmark): rare marker\n")
		}
		searchTestTree(b, ws.Root(), map[string]string{fmt.Sprintf("d%02d/s%02d/f%04d.go", i%20, i%7, i): sb.String()})
	}
	return ws
}

func BenchmarkGrep(b *testing.B) {
	ws := grepBenchTree(b)
	g := NewGrep(ws)
	for _, bc := range []struct{ name, pattern string }{
		{"RareLiteral", "rare marker"},
		{"CommonLiteral", "handler"},
		{"RegexpWithLiteral", `TODO\(\w+\)`},
		{"RegexpManyCandidates", `\d{3}\) //`},
		{"RegexpNoLiteral", `(?-i)[A-Z]{4}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := json.RawMessage(fmt.Sprintf(`{"pattern": %q}`, bc.pattern))
			b.ReportAllocs()
			for b.Loop() {
				res, err := g.Execute(context.Background(), args, nil)
				if err != nil || res.IsError || !strings.HasPrefix(res.Output, "Found") {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
