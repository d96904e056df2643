package tools

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only root (a session's saved outputs) is readable by the read
// and search tools, and no write tool, nor Resolve, accepts it.
func TestReadOnlyRoot(t *testing.T) {
	root, ws := ftWorkspace(t)
	extra := t.TempDir()
	saved := filepath.Join(extra, "tool-output", "run_shell_command-c1.txt")
	ftWriteFile(t, saved, "line one\nthe needle is here\nline three\n")
	if err := ws.AddReadOnly(extra); err != nil {
		t.Fatal(err)
	}

	if r := ftExec(t, NewReadFile(ws), map[string]any{"file_path": saved}); r.IsError || !strings.Contains(r.Output, "needle") {
		t.Errorf("read_file of the read-only root: %+v", r)
	}
	if r := ftExec(t, NewGrep(ws), map[string]any{"pattern": "needle", "path": filepath.Dir(saved)}); r.IsError || !strings.Contains(r.Output, "the needle is here") {
		t.Errorf("grep_search in the read-only root: %+v", r)
	}
	if r := ftExec(t, NewGrep(ws), map[string]any{"pattern": "needle", "path": saved}); r.IsError || !strings.Contains(r.Output, "the needle is here") {
		t.Errorf("grep_search of a file in the read-only root: %+v", r)
	}

	if r := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": saved, "content": "x"}); !r.IsError || r.ErrorType != "PATH_OUTSIDE_WORKSPACE" {
		t.Errorf("write_file into the read-only root: %+v", r)
	}
	if r := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": filepath.Join(extra, "new.txt"), "content": "x"}); !r.IsError {
		t.Errorf("write_file of a new file in the read-only root: %+v", r)
	}
	if r := ftExec(t, NewEdit(ws), map[string]any{"file_path": saved, "old_string": "needle", "new_string": "pin"}); !r.IsError {
		t.Errorf("edit in the read-only root: %+v", r)
	}
	if got := ftReadFile(t, saved); !strings.Contains(got, "needle") {
		t.Errorf("the saved output changed: %q", got)
	}
	if _, err := ws.Resolve(saved); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("Resolve accepted the read-only root: %v", err)
	}
	if got := ws.Roots(); len(got) != 1 || got[0] != root {
		t.Errorf("Roots() = %v: a read-only root is not a workspace root", got)
	}
	// Outside both stays refused for reads too.
	if r := ftExec(t, NewReadFile(ws), map[string]any{"file_path": filepath.Join(t.TempDir(), "x")}); !r.IsError || r.ErrorType != "PATH_OUTSIDE_WORKSPACE" {
		t.Errorf("read_file outside every root: %+v", r)
	}
}
