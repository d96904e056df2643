package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteOutsideWorkspaceSaysWhatToDo: a write or edit refused for a
// path outside the workspace says not to retry it and what to do instead.
func TestWriteOutsideWorkspaceSaysWhatToDo(t *testing.T) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	ftWriteFile(t, filepath.Join(outside, "o.txt"), "outside text")
	mustSymlink(t, filepath.Join(outside, "o.txt"), filepath.Join(root, "out-link"))
	cases := []struct {
		name string
		tool Tool
		args map[string]any
	}{
		{"edit absolute", NewEdit(ws), map[string]any{"file_path": filepath.Join(outside, "o.txt"), "old_string": "outside", "new_string": "x"}},
		{"edit through a link", NewEdit(ws), map[string]any{"file_path": "out-link", "old_string": "outside", "new_string": "x"}},
		{"write absolute", NewWriteFile(ws), map[string]any{"file_path": filepath.Join(outside, "new.txt"), "content": "x"}},
		{"write relative", NewWriteFile(ws), map[string]any{"file_path": "../elsewhere.txt", "content": "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ftExec(t, c.tool, c.args)
			ftWantError(t, res, "PATH_OUTSIDE_WORKSPACE", "outside the workspace", root,
				"Do not retry", "a path inside the workspace", "ask the user")
			if strings.Count(res.Output, "\n") > 0 {
				t.Errorf("want one paragraph: %q", res.Output)
			}
		})
	}
	if got := ftReadFile(t, filepath.Join(outside, "o.txt")); got != "outside text" {
		t.Errorf("outside file changed: %q", got)
	}
}
