package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rmTree builds a workspace from a map of relative paths to contents.
func rmTree(t *testing.T, files map[string]string) (string, *ReadManyFiles) {
	t.Helper()
	root, ws := ftWorkspace(t)
	for p, c := range files {
		ftWriteFile(t, filepath.Join(root, p), c)
	}
	return root, NewReadManyFiles(ws)
}

func rmExec(t *testing.T, tool *ReadManyFiles, args map[string]any) Result {
	t.Helper()
	return ftExec(t, tool, args)
}

// rmFiles returns the paths of the "--- path ---" separators, in order,
// relative to root.
func rmFiles(root, out string) []string {
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "--- ") && strings.HasSuffix(line, " ---") && line != "--- End of content ---" {
			p := strings.TrimSuffix(strings.TrimPrefix(line, "--- "), " ---")
			rel, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(rel))
		}
	}
	return got
}

func rmWantFiles(t *testing.T, root string, res Result, want ...string) {
	t.Helper()
	ftWantOK(t, res)
	got := rmFiles(root, res.Output)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("files read = %v, want %v\n%s", got, want, res.Output)
	}
}

func TestReadManyGlobAndDirectory(t *testing.T) {
	root, tool := rmTree(t, map[string]string{
		"src/a.go":       "package a\n",
		"src/sub/b.go":   "package b\n",
		"src/c.txt":      "not go\n",
		"docs/x.md":      "# X\n",
		"docs/deep/y.md": "# Y\n",
		"top.go":         "package top\n",
	})
	res := rmExec(t, tool, map[string]any{"paths": []string{"src/**/*.go"}})
	rmWantFiles(t, root, res, "src/a.go", "src/sub/b.go")
	if !strings.Contains(res.Output, "--- "+filepath.Join(root, "src/a.go")+" ---\n"+numberPrefix(1)+"package a\n") {
		t.Errorf("bad layout:\n%s", res.Output)
	}
	if !strings.HasPrefix(res.Output, "Read 2 file(s)") || !strings.HasSuffix(res.Output, "--- End of content ---") || res.Display != "Read 2 file(s)" {
		t.Errorf("bad summary: %q / %q", res.Output, res.Display)
	}

	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"docs"}}), "docs/deep/y.md", "docs/x.md")
	// A single-level pattern does not descend; "*.GO" matches like glob, ignoring case.
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"*.GO"}}), "top.go")
	// A path named twice, once through a pattern, is read once; absolute paths work.
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{filepath.Join(root, "docs/x.md"), "docs/*.md", "docs"}}),
		"docs/deep/y.md", "docs/x.md")
}

func TestReadManyGitignore(t *testing.T) {
	root, tool := rmTree(t, map[string]string{
		".gitignore":       "secret.txt\ngen/\n",
		"keep.txt":         "keep\n",
		"secret.txt":       "hidden\n",
		"gen/out.txt":      "generated\n",
		"sub/.gitignore":   "*.log\n",
		"sub/app.log":      "log\n",
		"sub/app.txt":      "app\n",
		"sub/again/x.log":  "log\n",
		"sub/again/ok.txt": "ok\n",
	})
	res := rmExec(t, tool, map[string]any{"paths": []string{"."}})
	rmWantFiles(t, root, res, ".gitignore", "keep.txt", "sub/.gitignore", "sub/again/ok.txt", "sub/app.txt")
	if strings.Contains(res.Output, "hidden") || strings.Contains(res.Output, "generated") {
		t.Errorf("ignored content read:\n%s", res.Output)
	}
	// Named explicitly, an ignored file is read, as read_file would.
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"secret.txt"}}), "secret.txt")
}

func TestReadManyDefaultExcludes(t *testing.T) {
	root, tool := rmTree(t, map[string]string{
		"main.go":                   "package main\n",
		"go.sum":                    "x v1 h1:abc\n",
		".env":                      "TOKEN=secret\n",
		"node_modules/pkg/index.js": "module.exports = 1\n",
		"vendor/lib/lib.go":         "package lib\n",
		"web/app.min.js":            "a()\n",
	})
	res := rmExec(t, tool, map[string]any{"paths": []string{"."}})
	rmWantFiles(t, root, res, "main.go")
	if !strings.Contains(res.Output, "Skipped (default excludes") || !strings.Contains(res.Output, filepath.Join(root, ".env")) {
		t.Errorf("default excludes not reported:\n%s", res.Output)
	}
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"."}, "useDefaultExcludes": false}),
		".env", "go.sum", "main.go", "node_modules/pkg/index.js", "vendor/lib/lib.go", "web/app.min.js")
	// A default-excluded directory named on purpose is read.
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"vendor"}}), "vendor/lib/lib.go")
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"vendor/**/*.go"}}), "vendor/lib/lib.go")
}

func TestReadManyIncludeExclude(t *testing.T) {
	root, tool := rmTree(t, map[string]string{
		"src/a.go":          "a\n",
		"src/a_test.go":     "a test\n",
		"src/sub/b.go":      "b\n",
		"src/testdata/x.go": "x\n",
		"docs/readme.md":    "docs\n",
		"docs/other.txt":    "other\n",
	})
	res := rmExec(t, tool, map[string]any{
		"paths":   []string{"src"},
		"include": []string{"docs/*.md"},
		"exclude": []string{"*_test.go", "testdata", "src/sub/**"},
	})
	rmWantFiles(t, root, res, "docs/readme.md", "src/a.go")
	if !strings.Contains(res.Output, "Skipped (excluded by the exclude patterns): 3") {
		t.Errorf("exclusions not reported:\n%s", res.Output)
	}
	// Exclude applies to explicitly named files too.
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"src/a_test.go"}, "exclude": []string{"*_test.go"}}), "NO_FILES_READ", "excluded")
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"src"}, "exclude": []string{"[unclosed"}}), "INVALID_TOOL_PARAMS", "exclude pattern")
}

func TestReadManyBinaryAndImages(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	root, tool := rmTree(t, map[string]string{
		"assets/logo.png": png,
		"assets/blob.bin": "\x00\x01\x02binary",
		"assets/note.txt": "text\n",
	})
	res := rmExec(t, tool, map[string]any{"paths": []string{"assets"}})
	rmWantFiles(t, root, res, "assets/note.txt")
	for _, want := range []string{"Skipped (binary): 1", "blob.bin", "Skipped (images not named explicitly): 1", "logo.png"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if len(res.Media) != 0 {
		t.Error("an image found through a directory was attached")
	}
	res = rmExec(t, tool, map[string]any{"paths": []string{"assets/logo.png", "assets/note.txt"}})
	rmWantFiles(t, root, res, "assets/logo.png", "assets/note.txt")
	if len(res.Media) != 1 || res.Media[0].MIMEType != "image/png" || string(res.Media[0].Data) != png {
		t.Errorf("media = %+v", res.Media)
	}
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"assets/blob.bin"}}), "NO_FILES_READ", "binary")
}

func TestReadManyPerFileCap(t *testing.T) {
	root, tool := rmTree(t, map[string]string{
		"big.txt":   numberedLines(1000),
		"small.txt": "small\n",
		"long.txt":  strings.Repeat("y", 5000) + "\nnext\n",
		"empty.txt": "",
	})
	tool.perFile = 100
	res := rmExec(t, tool, map[string]any{"paths": []string{"*.txt"}})
	rmWantFiles(t, root, res, "big.txt", "empty.txt", "long.txt", "small.txt")
	// "line 1\n".."line 9\n" are 63 bytes, "line 10\n".. are 8: 13 lines fit in 100.
	for _, want := range []string{"line 13\n[truncated at the per-file limit of 100 bytes: showed lines 1-13 of a 8.9 KB file; call read_file with offset 13",
		"[truncated at the per-file limit of 100 bytes: showed the start of line 1 of a 5.0 KB file",
		"--- " + filepath.Join(root, "empty.txt") + " ---\n[empty file]", "small\n", "yyy", "; 2 were truncated"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "line 14") || strings.Contains(res.Output, "next") {
		t.Errorf("cap not applied:\n%s", res.Output)
	}
}

func TestReadManyTotalCap(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+".txt"] = strings.Repeat(n, 39) + "\n"
	}
	root, tool := rmTree(t, files)
	tool.total = 100
	res := rmExec(t, tool, map[string]any{"paths": []string{"."}})
	// a and b fit whole (80 bytes); c gets the last 20 bytes: its one
	// line does not fit, so it is shown cut; d and e are skipped.
	rmWantFiles(t, root, res, "a.txt", "b.txt", "c.txt")
	for _, want := range []string{"c.txt ---\n" + numberPrefix(1) + strings.Repeat("c", 20) + "\n[truncated at the total limit of 100 bytes: showed the start of line 1", "Skipped (total limit reached): 2",
		filepath.Join(root, "d.txt"), filepath.Join(root, "e.txt"), "2 skipped (listed at the end)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
}

func TestReadManyPathErrors(t *testing.T) {
	root, tool := rmTree(t, map[string]string{"a.txt": "a\n"})
	outside := filepath.Dir(root)
	for _, p := range []string{"../x.txt", outside, filepath.Join(outside, "*.txt"), "../*"} {
		ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"a.txt", p}}), "PATH_OUTSIDE_WORKSPACE")
	}
	res := rmExec(t, tool, map[string]any{"paths": []string{"missing.txt", "gone/"}})
	ftWantError(t, res, "FILE_NOT_FOUND", "No file was read", filepath.Join(root, "missing.txt"), filepath.Join(root, "gone"))
	res = rmExec(t, tool, map[string]any{"paths": []string{"a.txt", "missing.txt"}})
	rmWantFiles(t, root, res, "a.txt")
	if !strings.Contains(res.Output, "Skipped (not found): 1\n- "+filepath.Join(root, "missing.txt")) {
		t.Errorf("missing file not reported:\n%s", res.Output)
	}
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"**/*.rs"}}), "NO_FILES_READ", `No files match the pattern "**/*.rs"`)
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"nodir/*.go"}}), "NO_FILES_READ", "No files match")
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"src/[x"}}), "INVALID_TOOL_PARAMS", "invalid glob")
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{}}), "INVALID_TOOL_PARAMS")
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{" "}}), "INVALID_TOOL_PARAMS")
	// A literal file whose name looks like a pattern is read as a file.
	ftWriteFile(t, filepath.Join(root, "odd[1].txt"), "odd\n")
	rmWantFiles(t, root, rmExec(t, tool, map[string]any{"paths": []string{"odd[1].txt"}}), "odd[1].txt")
}

func TestReadManySymlinkOutsideRefused(t *testing.T) {
	root, tool := rmTree(t, map[string]string{"in.txt": "in\n"})
	secret := filepath.Join(t.TempDir(), "secret.txt")
	ftWriteFile(t, secret, "secret\n")
	if err := os.Symlink(secret, filepath.Join(root, "link.txt")); err != nil {
		t.Skip(err)
	}
	ftWantError(t, rmExec(t, tool, map[string]any{"paths": []string{"link.txt"}}), "PATH_OUTSIDE_WORKSPACE")
	// The walk does not follow symlinks.
	res := rmExec(t, tool, map[string]any{"paths": []string{"."}})
	rmWantFiles(t, root, res, "in.txt")
}

// A huge file costs a buffer, not its size.
func TestReadManyStreamsBigFile(t *testing.T) {
	root, tool := rmTree(t, nil)
	f, err := os.Create(filepath.Join(root, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("z"), 99)
	line = append(line, '\n')
	chunk := bytes.Repeat(line, 10_000)
	for range 30 {
		f.Write(chunk)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := rmExec(t, tool, map[string]any{"paths": []string{"huge.log"}})
	runtime.ReadMemStats(&after)
	rmWantFiles(t, root, res, "huge.log")
	if !strings.Contains(res.Output, "of a 30.0 MB file") {
		t.Errorf("no truncation note:\n%.200s", res.Output[len(res.Output)-300:])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d KiB to read 64 KiB of a 30 MB file", alloc>>10)
	}
}

func TestReadManyCancelled(t *testing.T) {
	_, tool := rmTree(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tool.Execute(ctx, json.RawMessage(`{"paths":["."]}`), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestReadManySchema(t *testing.T) {
	_, tool := rmTree(t, nil)
	if tool.Name() != "read_many_files" || tool.Kind() != KindRead || tool.Description() == "" {
		t.Fatal("bad metadata")
	}
	wfCheckSchema(t, tool,
		[]string{`{"paths":["a"]}`, `{"paths":["a","b/**"],"include":["*.md"],"exclude":["x"],"useDefaultExcludes":false}`},
		[]string{`{}`, `{"paths":[]}`, `{"paths":"a"}`, `{"paths":[""]}`, `{"paths":["a"],"useDefaultExcludes":"no"}`, `{"paths":["a"],"x":1}`})
}
