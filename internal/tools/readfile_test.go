package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Helpers shared by the file tool tests.

// numberedLines returns "line 1\n" ... "line n\n".
// numbered is how read_file shows lines starting at line first.
func numbered(first int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", first+i, l)
	}
	return b.String()
}

func TestFileToolSchemas(t *testing.T) {
	_, ws := ftWorkspace(t)
	cases := []struct {
		tool   Tool
		kind   Kind
		good   []string
		bad    []string
		params []string
	}{
		{NewReadFile(ws), KindRead,
			[]string{`{"file_path":"a"}`, `{"file_path":"a","offset":0,"limit":5}`},
			[]string{`{}`, `{"file_path":"a","offset":-1}`, `{"file_path":"a","limit":0}`, `{"file_path":"a","x":1}`},
			[]string{"file_path", "offset", "limit"}},
		{NewWriteFile(ws), KindEdit,
			[]string{`{"file_path":"a","content":""}`},
			[]string{`{"file_path":"a"}`, `{"content":"x"}`, `{"file_path":"a","content":"x","mode":1}`},
			[]string{"file_path", "content"}},
		{NewEdit(ws), KindEdit,
			[]string{`{"file_path":"a","old_string":"x","new_string":"y"}`, `{"file_path":"a","old_string":"x","new_string":"y","replace_all":true}`},
			[]string{`{"file_path":"a","old_string":"x"}`, `{"file_path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`},
			[]string{"file_path", "old_string", "new_string", "replace_all"}},
		{NewListDirectory(ws), KindRead,
			[]string{`{"path":"."}`, `{"path":".","ignore":["*.go"]}`},
			[]string{`{}`, `{"path":".","ignore":"*.go"}`},
			[]string{"path", "ignore"}},
	}
	for _, c := range cases {
		t.Run(c.tool.Name(), func(t *testing.T) {
			if c.tool.Kind() != c.kind {
				t.Errorf("Kind = %s, want %s", c.tool.Kind(), c.kind)
			}
			if c.tool.Description() == "" {
				t.Error("empty description")
			}
			var decl struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			}
			if err := json.Unmarshal(c.tool.Schema(), &decl); err != nil {
				t.Fatalf("schema is not JSON: %v", err)
			}
			if decl.Type != "object" || decl.AdditionalProperties == nil || *decl.AdditionalProperties {
				t.Errorf("schema must be a closed object, got type %q additionalProperties %v", decl.Type, decl.AdditionalProperties)
			}
			for _, p := range c.params {
				if !strings.Contains(string(decl.Properties[p]), `"description"`) {
					t.Errorf("parameter %s missing or undescribed", p)
				}
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.tool.Schema()))
			if err != nil {
				t.Fatal(err)
			}
			comp := jsonschema.NewCompiler()
			if err := comp.AddResource("schema.json", doc); err != nil {
				t.Fatal(err)
			}
			sch, err := comp.Compile("schema.json")
			if err != nil {
				t.Fatalf("schema does not compile: %v", err)
			}
			check := func(arg string, wantOK bool) {
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(arg))
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(inst); (err == nil) != wantOK {
					t.Errorf("validate %s: err=%v, want ok=%v", arg, err, wantOK)
				}
			}
			for _, g := range c.good {
				check(g, true)
			}
			for _, b := range c.bad {
				check(b, false)
			}
		})
	}
}

func TestReadFileText(t *testing.T) {
	root, ws := ftWorkspace(t)
	rf := NewReadFile(ws)
	ftWriteFile(t, filepath.Join(root, "ten.txt"), numberedLines(10))
	ftWriteFile(t, filepath.Join(root, "noeol.txt"), "a\nb")
	ftWriteFile(t, filepath.Join(root, "empty.txt"), "")
	ftWriteFile(t, filepath.Join(root, "bom.txt"), "\uFEFFfirst\nsecond\n")
	ftWriteFile(t, filepath.Join(root, "crlf.txt"), "a\r\nb\r\n")
	ftWriteFile(t, filepath.Join(root, "latin1.txt"), "caf\xe9 au lait, na\xefve r\xe9sum\xe9 and a lot more plain ASCII text here\n")

	cases := []struct {
		name      string
		args      map[string]any
		want      string // exact output, or "" to skip
		contains  []string
		forbidden []string
	}{
		{name: "whole file", args: map[string]any{"file_path": "ten.txt"},
			want: numbered(1, strings.Split(strings.TrimSuffix(numberedLines(10), "\n"), "\n")...)},
		{name: "absolute path", args: map[string]any{"file_path": filepath.Join(root, "noeol.txt")}, want: numbered(1, "a", "b")},
		{name: "window", args: map[string]any{"file_path": "ten.txt", "offset": 2, "limit": 3},
			contains:  []string{"Showing lines 3-5 of 10 total lines.", "offset: 5", "\n\n" + numbered(3, "line 3", "line 4", "line 5")},
			forbidden: []string{"line 2\n", "line 6", "cut"}},
		{name: "window to the end", args: map[string]any{"file_path": "ten.txt", "offset": 8},
			contains: []string{"Showing lines 9-10 of 10 total lines.", numbered(9, "line 9", "line 10")}, forbidden: []string{"offset:"}},
		{name: "last line without newline", args: map[string]any{"file_path": "noeol.txt", "offset": 1},
			contains: []string{"Showing lines 2-2 of 2 total lines.", "\n\n" + numbered(2, "b")}},
		{name: "empty", args: map[string]any{"file_path": "empty.txt"}, contains: []string{"is empty"}},
		{name: "bom stripped", args: map[string]any{"file_path": "bom.txt"}, want: numbered(1, "first", "second")},
		{name: "crlf kept", args: map[string]any{"file_path": "crlf.txt"}, want: numbered(1, "a\r", "b\r")},
		{name: "latin1 shown with replacement", args: map[string]any{"file_path": "latin1.txt"},
			contains: []string{"caf\uFFFD au lait"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ftExec(t, rf, c.args)
			ftWantOK(t, res)
			if c.want != "" && res.Output != c.want {
				t.Errorf("output = %q, want %q", res.Output, c.want)
			}
			for _, s := range c.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output %q lacks %q", res.Output, s)
				}
			}
			for _, s := range c.forbidden {
				if strings.Contains(res.Output, s) {
					t.Errorf("output %q has %q", res.Output, s)
				}
			}
			if res.Display == "" {
				t.Error("empty Display")
			}
		})
	}
}

func TestReadFileLimits(t *testing.T) {
	root, ws := ftWorkspace(t)
	rf := NewReadFile(ws)

	t.Run("default line limit", func(t *testing.T) {
		ftWriteFile(t, filepath.Join(root, "many.txt"), numberedLines(1500))
		res := ftExec(t, rf, map[string]any{"file_path": "many.txt"})
		ftWantOK(t, res)
		for _, s := range []string{"Showing lines 1-1000 of 1500 total lines.", "offset: 1000", "line limit 1000 reached", "\n" + numbered(1000, "line 1000")} {
			if !strings.Contains(res.Output, s) {
				t.Errorf("output lacks %q", s)
			}
		}
		if strings.Contains(res.Output, "line 1001") {
			t.Error("line 1001 shown past the default limit")
		}
	})

	t.Run("character budget", func(t *testing.T) {
		line := strings.Repeat("y", 1000) + "\n"
		ftWriteFile(t, filepath.Join(root, "wide.txt"), strings.Repeat(line, 100))
		res := ftExec(t, rf, map[string]any{"file_path": "wide.txt"})
		ftWantOK(t, res)
		// 24 lines of 1001 characters (with newline) fit in 25000; a 25th does not.
		if !strings.Contains(res.Output, "Showing lines 1-24 of 100 total lines.") || !strings.Contains(res.Output, "offset: 24") {
			t.Errorf("header wrong: %q", res.Output[:min(300, len(res.Output))])
		}
		if !strings.Contains(res.Output, "25000 characters") {
			t.Error("budget cut not explained")
		}
		if n := strings.Count(res.Output, strings.Repeat("y", 1000)); n != 24 {
			t.Errorf("%d lines shown, want 24", n)
		}
	})

	t.Run("long line truncated", func(t *testing.T) {
		long := strings.Repeat("世", 3000)
		ftWriteFile(t, filepath.Join(root, "long.txt"), "short\n"+long+"\nafter\n")
		res := ftExec(t, rf, map[string]any{"file_path": "long.txt"})
		ftWantOK(t, res)
		if !strings.Contains(res.Output, "\n"+numbered(2, strings.Repeat("世", 2000)+" ... [line truncated]", "after")) {
			t.Errorf("long line not cut at 2000 characters: %q", res.Output[:200])
		}
		if strings.Contains(res.Output, strings.Repeat("世", 2001)) {
			t.Error("more than 2000 characters of the line shown")
		}
		if !strings.Contains(res.Output, "1 line(s) longer than 2000") {
			t.Error("truncation not noted")
		}
	})

	t.Run("line longer than the buffer", func(t *testing.T) {
		huge := strings.Repeat("z", 3*streamBufSize+17)
		ftWriteFile(t, filepath.Join(root, "huge-line.txt"), "one\n"+huge+"\nthree\nfour")
		res := ftExec(t, rf, map[string]any{"file_path": "huge-line.txt", "offset": 1, "limit": 2})
		ftWantOK(t, res)
		if !strings.Contains(res.Output, "Showing lines 2-3 of 4 total lines.") ||
			!strings.HasSuffix(res.Output, " ... [line truncated]\n"+numbered(3, "three")) {
			t.Errorf("bad window over a long line: %q", res.Output[len(res.Output)-80:])
		}
	})

	t.Run("offset past the end", func(t *testing.T) {
		ftWriteFile(t, filepath.Join(root, "three.txt"), numberedLines(3))
		ftWantError(t, ftExec(t, rf, map[string]any{"file_path": "three.txt", "offset": 3}), "INVALID_TOOL_PARAMS", "offset 3", "3 lines")
		ftWantOK(t, ftExec(t, rf, map[string]any{"file_path": "three.txt", "offset": 2}))
	})
}

func TestReadFileLargeFileWindow(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "big.log")
	const lines = 1_500_000 // about 20 MB
	writeNumberedFile(t, path, lines)
	rf := NewReadFile(ws)

	res := ftExec(t, rf, map[string]any{"file_path": path, "offset": 1_234_567, "limit": 3})
	ftWantOK(t, res)
	want := fmt.Sprintf("Showing lines 1234568-1234570 of %d total lines.", lines)
	if !strings.HasPrefix(res.Output, want) {
		t.Errorf("header %q, want %q", strings.SplitN(res.Output, "\n", 2)[0], want)
	}
	if !strings.Contains(res.Output, "offset: 1234570") {
		t.Error("next offset missing")
	}
	if !strings.HasSuffix(res.Output, "\n\n"+numbered(1234568, numberedRow(1234568), numberedRow(1234569), numberedRow(1234570))) {
		t.Errorf("wrong lines: %q", res.Output)
	}

	res = ftExec(t, rf, map[string]any{"file_path": path, "offset": lines - 1})
	ftWantOK(t, res)
	if !strings.HasSuffix(res.Output, "\n\n"+numbered(lines, numberedRow(lines))) || strings.Contains(res.Output, "offset:") {
		t.Errorf("last line window wrong: %q", res.Output)
	}
}

func numberedRow(i int) string {
	return fmt.Sprintf("%09d the quick brown fox jumps over the lazy dog", i)
}

// writeNumberedFile writes rows 1..n of numberedRow, one per line.
func writeNumberedFile(t testing.TB, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 1; i <= n; i++ {
		w.WriteString(numberedRow(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReadFileErrors(t *testing.T) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	ftWriteFile(t, filepath.Join(outside, "secret.txt"), "secret")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "outdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	ftWriteFile(t, filepath.Join(root, "nul.bin"), "ELF\x00\x01\x02binary")
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(0x80 + i%64) // continuation bytes only: not UTF-8
	}
	ftWriteFile(t, filepath.Join(root, "noise.bin"), string(noise))
	bigPNG := filepath.Join(root, "big.png")
	ftWriteFile(t, bigPNG, "\x89PNG\r\n\x1a\n")
	if err := os.Truncate(bigPNG, maxImageBytes+1); err != nil {
		t.Fatal(err)
	}

	rf := NewReadFile(ws)
	cases := []struct {
		name    string
		args    any
		errType string
		mention []string
	}{
		{"missing", map[string]any{"file_path": "nope.txt"}, "FILE_NOT_FOUND", []string{filepath.Join(root, "nope.txt")}},
		{"directory", map[string]any{"file_path": "sub"}, "TARGET_IS_DIRECTORY", []string{"directory", "list_directory"}},
		{"nul bytes", map[string]any{"file_path": "nul.bin"}, "BINARY_FILE", []string{"binary"}},
		{"invalid utf-8", map[string]any{"file_path": "noise.bin"}, "BINARY_FILE", []string{"binary"}},
		{"image too large", map[string]any{"file_path": "big.png"}, "FILE_TOO_LARGE", []string{"big.png"}},
		{"absolute outside", map[string]any{"file_path": filepath.Join(outside, "secret.txt")}, "PATH_OUTSIDE_WORKSPACE", []string{"outside the workspace"}},
		{"dotdot outside", map[string]any{"file_path": "../x"}, "PATH_OUTSIDE_WORKSPACE", []string{"outside the workspace"}},
		{"symlink outside", map[string]any{"file_path": "link.txt"}, "PATH_OUTSIDE_WORKSPACE", []string{"outside the workspace"}},
		{"through linked dir", map[string]any{"file_path": "outdir/secret.txt"}, "PATH_OUTSIDE_WORKSPACE", []string{"outside the workspace"}},
		{"empty path", map[string]any{"file_path": ""}, "INVALID_TOOL_PARAMS", []string{"file_path"}},
		{"negative offset", map[string]any{"file_path": "nul.bin", "offset": -1}, "INVALID_TOOL_PARAMS", []string{"offset"}},
		{"zero limit", map[string]any{"file_path": "nul.bin", "limit": 0}, "INVALID_TOOL_PARAMS", []string{"limit"}},
		{"not json", `{"file_path":`, "INVALID_TOOL_PARAMS", []string{"invalid arguments"}},
		{"wrong type", `{"file_path": 3}`, "INVALID_TOOL_PARAMS", []string{"invalid arguments"}},
		{"no args", ``, "INVALID_TOOL_PARAMS", []string{"missing arguments"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ftExec(t, rf, c.args)
			ftWantError(t, res, c.errType, c.mention...)
			if strings.Contains(res.Output, "secret") && !strings.Contains(res.Output, "secret.txt") {
				t.Error("content outside the workspace leaked")
			}
		})
	}
}

func TestReadFileImages(t *testing.T) {
	root, ws := ftWorkspace(t)
	rf := NewReadFile(ws)
	cases := []struct{ name, data, mime string }{
		{"pic.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR rest", "image/png"},
		{"pic.jpg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"},
		{"pic.gif", "GIF89a\x01\x00\x01\x00\x00\x00", "image/gif"},
		{"pic.webp", "RIFF\x24\x00\x00\x00WEBPVP8 \x00", "image/webp"},
		{"misnamed.txt", "\x89PNG\r\n\x1a\n\x00", "image/png"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ftWriteFile(t, filepath.Join(root, c.name), c.data)
			res := ftExec(t, rf, map[string]any{"file_path": c.name})
			ftWantOK(t, res)
			if len(res.Media) != 1 || res.Media[0].MIMEType != c.mime || string(res.Media[0].Data) != c.data {
				t.Fatalf("media = %+v, want one %s with the file's bytes", res.Media, c.mime)
			}
			if !strings.Contains(res.Output, c.mime) {
				t.Errorf("output %q does not name the type", res.Output)
			}
		})
	}
}

func TestReadFileCancelled(t *testing.T) {
	root, ws := ftWorkspace(t)
	ftWriteFile(t, filepath.Join(root, "a.txt"), "a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range []Tool{NewReadFile(ws), NewWriteFile(ws), NewEdit(ws), NewListDirectory(ws)} {
		_, err := tool.Execute(ctx, json.RawMessage(`{"file_path":"a.txt","path":".","content":"x","old_string":"a","new_string":"b"}`), nil)
		if err != context.Canceled {
			t.Errorf("%s: err = %v, want context.Canceled", tool.Name(), err)
		}
	}
	if got := ftReadFile(t, filepath.Join(root, "a.txt")); got != "a\n" {
		t.Errorf("cancelled tools changed the file: %q", got)
	}
}

func TestLooksBinary(t *testing.T) {
	cases := []struct {
		name     string
		head     string
		complete bool
		want     bool
	}{
		{"ascii", "hello\tworld\r\n", true, false},
		{"utf8", "héllo wörld ✓", true, false},
		{"ansi escapes", "\x1b[31mred\x1b[0m\n", true, false},
		{"nul", "abc\x00def", true, true},
		{"controls", "\x01\x02\x03\x04abc", true, true},
		{"rune cut at sniff end", strings.Repeat("a", 20) + "\xe4\xb8", false, false},
		{"rune cut at file end", "ab\xe4\xb8", true, true},
		{"empty", "", true, false},
	}
	for _, c := range cases {
		if got := looksBinary([]byte(c.head), c.complete); got != c.want {
			t.Errorf("%s: looksBinary = %v, want %v", c.name, got, c.want)
		}
	}
}

// BenchmarkReadFileOffset reads 100 lines deep into a ~100 MB file: the
// cost is the streaming scan, and allocations must not grow with the file.
func BenchmarkReadFileOffset(b *testing.B) {
	root, ws := ftWorkspace(b)
	path := filepath.Join(root, "big.log")
	const lines = 2_000_000 // 53 bytes a line: about 106 MB
	writeNumberedFile(b, path, lines)
	rf := NewReadFile(ws)
	args := json.RawMessage(fmt.Sprintf(`{"file_path":%q,"offset":1500000,"limit":100}`, path))
	// b.Run makes this outer function run once, so the file is written
	// once, not once per b.N ramp-up round.
	b.Run("offset=1.5M,limit=100", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(lines * (len(numberedRow(1)) + 1)))
		b.ResetTimer()
		for range b.N {
			res, err := rf.Execute(context.Background(), args, nil)
			if err != nil || res.IsError {
				b.Fatalf("read failed: %v %s", err, res.Output)
			}
		}
	})
}
