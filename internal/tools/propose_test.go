package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestProposeAndWithContent: what Propose says the call leaves is what
// Execute leaves, and the reviewer's own text, turned into arguments by
// WithContent, is what Execute then writes.
func TestProposeAndWithContent(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, before, user string
		tool               func(*Workspace) Proposer
		args               func(path string) string
	}{
		{"edit", "a\nb\nc\n", "a\nB, edited by hand\nc\n",
			func(w *Workspace) Proposer { return NewEdit(w) },
			func(p string) string {
				b, _ := json.Marshal(map[string]any{"file_path": p, "old_string": "b", "new_string": "B"})
				return string(b)
			}},
		{"edit in a CRLF file", "a\r\nb\r\n", "a\r\nbb\r\nx\r\n",
			func(w *Workspace) Proposer { return NewEdit(w) },
			func(p string) string {
				b, _ := json.Marshal(map[string]any{"file_path": p, "old_string": "b", "new_string": "bb"})
				return string(b)
			}},
		{"edit creating a file", "", "made by hand\n",
			func(w *Workspace) Proposer { return NewEdit(w) },
			func(p string) string {
				b, _ := json.Marshal(map[string]any{"file_path": p, "old_string": "", "new_string": "new\n"})
				return string(b)
			}},
		{"write_file", "old\n", "the user's\n",
			func(w *Workspace) Proposer { return NewWriteFile(w) },
			func(p string) string {
				b, _ := json.Marshal(map[string]any{"file_path": p, "content": "model's\n"})
				return string(b)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := NewWorkspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "f.txt")
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pr := tc.tool(w)
			args := json.RawMessage(tc.args(path))
			p, ok := pr.Propose(ctx, args)
			if !ok || p.Path != path || p.Before != tc.before {
				t.Fatalf("Propose = %+v, %v", p, ok)
			}
			rewritten, err := pr.WithContent(args, p, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := pr.(Tool).Execute(ctx, rewritten, nil); err != nil || r.ErrorType != "" {
				t.Fatalf("Execute(%s) = %+v, %v", rewritten, r, err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.user {
				t.Fatalf("the file holds %q, want the user's %q", got, tc.user)
			}
		})
	}
}

func TestProposeRefusesWhatWouldFail(t *testing.T) {
	dir := t.TempDir()
	w, _ := NewWorkspace(dir)
	path := filepath.Join(dir, "f.txt")
	_ = os.WriteFile(path, []byte("x\n"), 0o644)
	args, _ := json.Marshal(map[string]any{"file_path": path, "old_string": "nowhere", "new_string": "y"})
	if _, ok := NewEdit(w).Propose(context.Background(), args); ok {
		t.Fatal("Propose offered an edit that does not apply")
	}
	args, _ = json.Marshal(map[string]any{"file_path": filepath.Join(dir, "..", "outside"), "content": "y"})
	if _, ok := NewWriteFile(w).Propose(context.Background(), args); ok {
		t.Fatal("Propose offered a write outside the workspace")
	}
}
