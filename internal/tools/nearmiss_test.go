package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotFoundSuggestsNearMisses: a path that does not exist is answered
// with the files next to it whose names are a typo away.
func TestNotFoundSuggestsNearMisses(t *testing.T) {
	root, ws := ftWorkspace(t)
	for _, f := range []string{"bytes.go", "bytes_test.go", "buffer.go", "README.md"} {
		ftWriteFile(t, filepath.Join(root, "pkg", f), "x\n")
	}
	rf := NewReadFile(ws)
	for arg, want := range map[string]string{
		"pkg/byte.go":   "pkg/bytes.go",
		"pkg/Bytes.go":  "pkg/bytes.go",
		"pkg/readme.md": "pkg/README.md",
		"pkgs/bytes.go": "pkg/bytes.go",
	} {
		res := ftExec(t, rf, map[string]any{"file_path": arg})
		if !res.IsError || res.ErrorType != "FILE_NOT_FOUND" || !strings.Contains(res.Output, "Did you mean") || !strings.Contains(res.Output, filepath.Join(root, want)) {
			t.Errorf("%s: %s", arg, res.Output)
		}
	}
	res := ftExec(t, rf, map[string]any{"file_path": "pkg/zzzzzz.txt"})
	if strings.Contains(res.Output, "Did you mean") {
		t.Errorf("a far name got a suggestion: %s", res.Output)
	}
	if err := os.Remove(filepath.Join(root, "pkg", "buffer.go")); err != nil {
		t.Fatal(err)
	}
}
