package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// write_file's pre-check fails the writes Execute would refuse for their
// path, so that no one is asked to approve them, and passes the others.
func TestWriteFilePrecheck(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := NewWriteFile(ws)
	for _, c := range []struct {
		path, want string // want is the error type; "" passes
	}{
		{filepath.Join(root, "new.txt"), ""},
		{"rel/new.txt", ""},
		{filepath.Join(outside, "x.txt"), "PATH_OUTSIDE_WORKSPACE"},
		{filepath.Join(root, "escape", "x.txt"), "PATH_OUTSIDE_WORKSPACE"},
		{filepath.Join(root, "..", filepath.Base(outside), "x.txt"), "PATH_OUTSIDE_WORKSPACE"},
		{filepath.Join(root, "sub"), "TARGET_IS_DIRECTORY"},
		{"", "INVALID_TOOL_PARAMS"},
	} {
		args, _ := json.Marshal(map[string]string{"file_path": c.path, "content": "x"})
		r := w.Precheck(context.Background(), args)
		switch {
		case c.want == "" && r != nil:
			t.Errorf("%q: pre-check failed: %+v", c.path, r)
		case c.want != "" && (r == nil || !r.IsError || r.ErrorType != c.want):
			t.Errorf("%q: pre-check %+v, want %s", c.path, r, c.want)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the pre-check wrote outside: %v", entries)
	}
}
