package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditTool(t *testing.T) {
	cases := []struct {
		name     string
		initial  string // "" with noFile: the file does not exist
		noFile   bool
		args     map[string]any // file_path defaults to "f.txt"
		want     string         // file afterwards
		contains []string       // in Output
	}{
		{name: "replace with diff", initial: "one\ntwo\nthree\n",
			args: map[string]any{"old_string": "two", "new_string": "2"}, want: "one\n2\nthree\n",
			contains: []string{"has been updated (1 replacement)", "now line 2", "     1\tone\n     2\t2\n     3\tthree\n",
				"--- a/f.txt\n+++ b/f.txt\n@@ -2 +2 @@\n-two\n+2"}},
		{name: "replace all", initial: "a-a-a",
			args: map[string]any{"old_string": "a", "new_string": "b", "replace_all": true}, want: "b-b-b",
			contains: []string{"3 replacements"}},
		{name: "dollar literal", initial: "price\n",
			args: map[string]any{"old_string": "price", "new_string": "$1.00 ${total} $&"}, want: "$1.00 ${total} $&\n"},
		{name: "crlf preserved", initial: "a\r\nb\r\nc\r\n",
			args: map[string]any{"old_string": "a\nb", "new_string": "x\ny\nz"}, want: "x\r\ny\r\nz\r\nc\r\n"},
		{name: "bom preserved", initial: "\uFEFFpackage main\n",
			args: map[string]any{"old_string": "package main", "new_string": "package lib"}, want: "\uFEFFpackage lib\n"},
		{name: "curly quotes", initial: "msg := “hello”\n",
			args: map[string]any{"old_string": `msg := "hello"`, "new_string": `msg := "bye"`}, want: "msg := \"bye\"\n",
			contains: []string{"did not match exactly"}},
		{name: "trailing spaces", initial: "if x {   \n\ty()\n}\n",
			args: map[string]any{"old_string": "if x {\n\ty()\n}", "new_string": "if x {\n\tz()\n}"}, want: "if x {\n\tz()\n}\n"},
		{name: "create with empty old_string", noFile: true,
			args: map[string]any{"file_path": "new/dir/f.go", "old_string": "", "new_string": "package dir\n"}, want: "package dir\n",
			contains: []string{"Created new file", "(1 line)", "+package dir"}},
		{name: "fill an empty file", initial: "",
			args: map[string]any{"old_string": "", "new_string": "content\n"}, want: "content\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, ws := ftWorkspace(t)
			rel, _ := c.args["file_path"].(string)
			if rel == "" {
				rel = "f.txt"
				c.args["file_path"] = rel
			}
			path := filepath.Join(root, rel)
			if !c.noFile {
				ftWriteFile(t, path, c.initial)
			}
			res := ftExec(t, NewEdit(ws), c.args)
			ftWantOK(t, res)
			if got := ftReadFile(t, path); got != c.want {
				t.Errorf("file = %q, want %q", got, c.want)
			}
			for _, s := range c.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output %q lacks %q", res.Output, s)
				}
			}
			// The output's diff leaves out the context lines the numbered
			// lines show; the display's has them.
			if !strings.HasPrefix(res.Display, "--- ") || !strings.Contains(res.Output, res.Display[:strings.Index(res.Display, "\n@@")]) {
				t.Errorf("Display %q should be the diff of the change shown in the output", res.Display)
			}
			ftWantNoTempFiles(t, root)
		})
	}
}

func TestEditToolErrors(t *testing.T) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	ftWriteFile(t, filepath.Join(outside, "o.txt"), "outside text")
	mustSymlink(t, filepath.Join(outside, "o.txt"), filepath.Join(root, "out-link"))
	ftWriteFile(t, filepath.Join(root, "f.txt"), "dup dup\nunique\n")
	ftWriteFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	ftWriteFile(t, filepath.Join(root, "bin.dat"), "abc\x00def")
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	ed := NewEdit(ws)
	cases := []struct {
		name    string
		args    any
		errType string
		mention []string
	}{
		{"no match", map[string]any{"file_path": "f.txt", "old_string": "absent", "new_string": "x"},
			"EDIT_NO_OCCURRENCE_FOUND", []string{"0 occurrences", "read_file"}},
		{"ambiguous", map[string]any{"file_path": "f.txt", "old_string": "dup", "new_string": "x"},
			"EDIT_EXPECTED_OCCURRENCE_MISMATCH", []string{"matches 2 places", "replace_all", "more surrounding"}},
		{"identical", map[string]any{"file_path": "f.txt", "old_string": "unique", "new_string": "unique"},
			"EDIT_NO_CHANGE", []string{"identical"}},
		{"empty old on existing", map[string]any{"file_path": "f.txt", "old_string": "", "new_string": "x"},
			"ATTEMPT_TO_CREATE_EXISTING_FILE", []string{"not empty"}},
		{"missing file", map[string]any{"file_path": "nope.txt", "old_string": "a", "new_string": "b"},
			"FILE_NOT_FOUND", []string{filepath.Join(root, "nope.txt"), "empty old_string"}},
		{"directory", map[string]any{"file_path": "dir", "old_string": "a", "new_string": "b"},
			"TARGET_IS_DIRECTORY", nil},
		{"binary", map[string]any{"file_path": "bin.dat", "old_string": "abc", "new_string": "b"},
			"BINARY_FILE", nil},
		{"git dir", map[string]any{"file_path": ".git/config", "old_string": "core", "new_string": "x"},
			"PATH_NOT_ALLOWED", []string{".git"}},
		{"symlink outside", map[string]any{"file_path": "out-link", "old_string": "outside", "new_string": "pwned"},
			"PATH_OUTSIDE_WORKSPACE", []string{"outside the workspace"}},
		{"absolute outside", map[string]any{"file_path": filepath.Join(outside, "o.txt"), "old_string": "outside", "new_string": "pwned"},
			"PATH_OUTSIDE_WORKSPACE", nil},
		{"missing new_string", map[string]any{"file_path": "f.txt", "old_string": "a"},
			"INVALID_TOOL_PARAMS", []string{"new_string"}},
		{"bad json", `{"file_path": "f.txt", "old_string": 1}`, "INVALID_TOOL_PARAMS", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ftWantError(t, ftExec(t, ed, c.args), c.errType, c.mention...)
		})
	}
	if got := ftReadFile(t, filepath.Join(root, "f.txt")); got != "dup dup\nunique\n" {
		t.Errorf("failed edits changed the file: %q", got)
	}
	if got := ftReadFile(t, filepath.Join(outside, "o.txt")); got != "outside text" {
		t.Errorf("outside file changed: %q", got)
	}
}

func TestEditToolKeepsModeAndSurvivesFailure(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "run.sh")
	ftWriteFile(t, path, "echo a\n")
	if err := os.Chmod(path, 0o700); err != nil {
		t.Fatal(err)
	}
	ed := NewEdit(ws)
	ftWantOK(t, ftExec(t, ed, map[string]any{"file_path": path, "old_string": "a", "new_string": "b"}))
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode = %v, want 0700", fi.Mode().Perm())
	}

	failRename(t)
	res := ftExec(t, ed, map[string]any{"file_path": path, "old_string": "b", "new_string": "c"})
	ftWantError(t, res, "FILE_WRITE_FAILURE", path)
	if got := ftReadFile(t, path); got != "echo b\n" {
		t.Errorf("file after failed write = %q, want the previous content", got)
	}
	ftWantNoTempFiles(t, root)
}
