package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListDirectory(t *testing.T) {
	root, ws := ftWorkspace(t)
	for _, f := range []string{"b.go", "a.txt", "Z.md", "debug.log", "src/main.go", "node_modules/x/y.js", ".hidden"} {
		ftWriteFile(t, filepath.Join(root, f), "x")
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, "src", filepath.Join(root, "src-link"))
	mustSymlink(t, "nowhere", filepath.Join(root, "broken"))

	ld := NewListDirectory(ws)
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"root sorted dirs first", map[string]any{"path": "."},
			"Directory listing for " + root + ":\nempty/\nnode_modules/\nsrc/\nsrc-link/\n.hidden\nZ.md\na.txt\nb.go\nbroken\ndebug.log"},
		{"ignore patterns", map[string]any{"path": root, "ignore": []string{"*.log", "node_modules/", "{a,b}.*"}},
			"Directory listing for " + root + ":\nempty/\nsrc/\nsrc-link/\n.hidden\nZ.md\nbroken\n\n(4 entries ignored by the ignore patterns)"},
		{"subdirectory", map[string]any{"path": "src"},
			"Directory listing for " + filepath.Join(root, "src") + ":\nmain.go"},
		{"empty", map[string]any{"path": "empty"}, "Directory " + filepath.Join(root, "empty") + " is empty."},
		{"all ignored", map[string]any{"path": "src", "ignore": []string{"*"}},
			"Directory " + filepath.Join(root, "src") + " is empty.\n\n(1 entry ignored by the ignore patterns)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ftExec(t, ld, c.args)
			ftWantOK(t, res)
			if res.Output != c.want {
				t.Errorf("output:\n%s\nwant:\n%s", res.Output, c.want)
			}
			if res.Display == "" {
				t.Error("empty Display")
			}
		})
	}
}

func TestListDirectoryErrors(t *testing.T) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	ftWriteFile(t, filepath.Join(root, "file.txt"), "x")
	mustSymlink(t, outside, filepath.Join(root, "out"))
	ld := NewListDirectory(ws)
	cases := []struct {
		name    string
		args    any
		errType string
		mention []string
	}{
		{"missing", map[string]any{"path": "nope"}, "FILE_NOT_FOUND", []string{"Directory not found", filepath.Join(root, "nope")}},
		{"a file", map[string]any{"path": "file.txt"}, "PATH_IS_NOT_A_DIRECTORY", []string{"read_file"}},
		{"outside", map[string]any{"path": outside}, "PATH_OUTSIDE_WORKSPACE", nil},
		{"symlink outside", map[string]any{"path": "out"}, "PATH_OUTSIDE_WORKSPACE", nil},
		{"parent", map[string]any{"path": ".."}, "PATH_OUTSIDE_WORKSPACE", nil},
		{"bad pattern", map[string]any{"path": ".", "ignore": []string{"[a-"}}, "INVALID_TOOL_PARAMS", []string{"[a-"}},
		{"empty path", map[string]any{"path": ""}, "INVALID_TOOL_PARAMS", []string{"path"}},
		{"ignore not array", `{"path": ".", "ignore": "*.go"}`, "INVALID_TOOL_PARAMS", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ftWantError(t, ftExec(t, ld, c.args), c.errType, c.mention...)
		})
	}
}

func TestListDirectoryCap(t *testing.T) {
	root, ws := ftWorkspace(t)
	for i := range maxListEntries + 5 {
		ftWriteFile(t, filepath.Join(root, fmt.Sprintf("f%05d", i)), "")
	}
	res := ftExec(t, NewListDirectory(ws), map[string]any{"path": "."})
	ftWantOK(t, res)
	if got := strings.Count(res.Output, "\nf"); got != maxListEntries {
		t.Errorf("%d entries shown, want %d", got, maxListEntries)
	}
	if !strings.Contains(res.Output, "... and 5 more entries not shown") {
		t.Error("cap not reported")
	}
}
