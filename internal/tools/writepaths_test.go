package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writePathsWorkspace(t testing.TB) (*Workspace, string) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "ln")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../a.txt", filepath.Join(root, "real", "to-a")); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, root
}

// The files write_file and edit write are known from their arguments,
// through links to where they really are; a path the tool refuses
// writes nothing; arguments that do not say are not guessed at.
func TestWritePaths(t *testing.T) {
	ws, root := writePathsWorkspace(t)
	abs := func(rel string) string { return filepath.Join(root, rel) }
	for _, tool := range []PathWriter{NewWriteFile(ws), NewEdit(ws)} {
		for _, c := range []struct {
			args string
			want []string
			ok   bool
		}{
			{`{"file_path":"a.txt"}`, []string{abs("a.txt")}, true},
			{`{"file_path":"` + abs("dir/new.txt") + `"}`, []string{abs("dir/new.txt")}, true},
			{`{"file_path":"ln/x.txt"}`, []string{abs("ln/x.txt"), abs("real/x.txt")}, true},
			{`{"file_path":"real/to-a"}`, []string{abs("real/to-a"), abs("a.txt")}, true},
			{`{"file_path":"/etc/passwd"}`, nil, true},
			{`{"file_path":"../outside"}`, nil, true},
			{`{"file_path":""}`, nil, false},
			{`{}`, nil, false},
			{`not json`, nil, false},
		} {
			got, ok := tool.WritePaths(json.RawMessage(c.args))
			if ok != c.ok || !slices.Equal(got, c.want) {
				t.Errorf("%T %s: got %q %v, want %q %v", tool, c.args, got, ok, c.want, c.ok)
			}
		}
	}
}

func FuzzWritePaths(f *testing.F) {
	for _, s := range []string{`{"file_path":"a.txt"}`, `{"file_path":"ln/../../x"}`, `{"file_path":"/"}`, `{"file_path":"ln"}`, `[]`, `{"file_path":7}`} {
		f.Add(s)
	}
	ws, root := writePathsWorkspace(f)
	tool := NewWriteFile(ws)
	f.Fuzz(func(t *testing.T, args string) {
		paths, _ := tool.WritePaths(json.RawMessage(args))
		for _, p := range paths {
			real, err := realPath(p)
			if err != nil || !within(root, real) {
				t.Fatalf("%s: %q leads outside the workspace (%q, %v)", args, p, real, err)
			}
		}
	})
}
