package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Calls one after another share pooled buffers: what one read must never
// show in the next one's answer, whether the next file is shorter, or
// holds a line longer than the buffer (which grows it, and is not
// pooled).
func TestPooledBuffersCarryNothingOver(t *testing.T) {
	root, ws := ftWorkspace(t)
	var big strings.Builder
	for i := 0; big.Len() < 3*streamBufSize; i++ {
		fmt.Fprintf(&big, "OLDCONTENT line %d\n", i)
	}
	ftWriteFile(t, filepath.Join(root, "big.txt"), big.String())
	ftWriteFile(t, filepath.Join(root, "small.txt"), "new\n")
	ftWriteFile(t, filepath.Join(root, "long.txt"), "start "+strings.Repeat("y", 2*streamBufSize)+" needle\nend\n")
	rf, rm, grep := NewReadFile(ws), NewReadManyFiles(ws), NewGrep(ws)

	for round := range 3 {
		if res := ftExec(t, rf, map[string]any{"file_path": "big.txt", "offset": 2000, "limit": 5}); !strings.Contains(res.Output, "OLDCONTENT line 2000") {
			t.Fatalf("round %d: read_file big.txt: %q", round, res.Output)
		}
		res := ftExec(t, rf, map[string]any{"file_path": "small.txt"})
		ftWantOK(t, res)
		if res.Output != numbered(1, "new") {
			t.Fatalf("round %d: read_file small.txt after big.txt = %q", round, res.Output)
		}
		res = ftExec(t, rm, map[string]any{"paths": []string{"small.txt"}})
		if !strings.Contains(res.Output, "new") || strings.Contains(res.Output, "OLDCONTENT") {
			t.Fatalf("round %d: read_many_files small.txt = %q", round, res.Output)
		}
		res = ftExec(t, rf, map[string]any{"file_path": "long.txt", "offset": 1})
		if !strings.Contains(res.Output, "end") || strings.Contains(res.Output, "OLDCONTENT") {
			t.Fatalf("round %d: read_file long.txt = %q", round, res.Output)
		}
		res = ftExec(t, grep, map[string]any{"pattern": "needle|^new$", "path": "."})
		if !strings.Contains(res.Output, "small.txt") || !strings.Contains(res.Output, "long.txt") || strings.Contains(res.Output, "OLDCONTENT") {
			t.Fatalf("round %d: grep_search = %q", round, res.Output)
		}
	}
}
