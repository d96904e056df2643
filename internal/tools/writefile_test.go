package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileCreateAndOverwrite(t *testing.T) {
	root, ws := ftWorkspace(t)
	wf := NewWriteFile(ws)

	path := filepath.Join(root, "a", "b", "new.go")
	res := ftExec(t, wf, map[string]any{"file_path": "a/b/new.go", "content": "package b\n\nfunc F() {}\n"})
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "created") || !strings.Contains(res.Output, "(3 lines)") || !strings.Contains(res.Output, path) {
		t.Errorf("create output = %q", res.Output)
	}
	if got := ftReadFile(t, path); got != "package b\n\nfunc F() {}\n" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != newFilePerm {
		t.Errorf("new file mode = %v, want %v", fi.Mode().Perm(), newFilePerm)
	}

	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	res = ftExec(t, wf, map[string]any{"file_path": path, "content": "x"})
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "overwrote") || !strings.Contains(res.Output, "(1 lines)") {
		t.Errorf("overwrite output = %q", res.Output)
	}
	if got := ftReadFile(t, path); got != "x" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after overwrite = %v, want 0750 kept", fi.Mode().Perm())
	}

	res = ftExec(t, wf, map[string]any{"file_path": "empty.txt", "content": ""})
	ftWantOK(t, res)
	if fi, err := os.Stat(filepath.Join(root, "empty.txt")); err != nil || fi.Size() != 0 {
		t.Errorf("empty file not written: %v", err)
	}
	ftWantNoTempFiles(t, root)
}

func TestWriteFileRefusals(t *testing.T) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	ftWriteFile(t, filepath.Join(outside, "target.txt"), "outside")
	ftWriteFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	ftWriteFile(t, filepath.Join(root, "vendor", "m", ".git", "HEAD"), "ref\n")
	mustSymlink(t, filepath.Join(outside, "target.txt"), filepath.Join(root, "out-link"))
	mustSymlink(t, filepath.Join(outside, "missing.txt"), filepath.Join(root, "dangling-out"))
	mustSymlink(t, "../"+filepath.Base(outside)+"/rel-missing.txt", filepath.Join(root, "dangling-rel"))
	mustSymlink(t, filepath.Join(root, ".git"), filepath.Join(root, "gitdir-link"))
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	wf := NewWriteFile(ws)
	cases := []struct {
		name, path, errType string
	}{
		{"git config", ".git/config", "PATH_NOT_ALLOWED"},
		{"new file in .git", ".git/hooks/pre-commit", "PATH_NOT_ALLOWED"},
		{"nested repo", "vendor/m/.git/HEAD", "PATH_NOT_ALLOWED"},
		{"through link to .git", "gitdir-link/config", "PATH_NOT_ALLOWED"},
		{"outside absolute", filepath.Join(outside, "new.txt"), "PATH_OUTSIDE_WORKSPACE"},
		{"symlink to outside file", "out-link", "PATH_OUTSIDE_WORKSPACE"},
		{"dangling symlink to outside", "dangling-out", "PATH_OUTSIDE_WORKSPACE"},
		{"relative dangling symlink", "dangling-rel", "PATH_OUTSIDE_WORKSPACE"},
		{"directory", "dir", "TARGET_IS_DIRECTORY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ftWantError(t, ftExec(t, wf, map[string]any{"file_path": c.path, "content": "pwned"}), c.errType)
		})
	}
	ftWantError(t, ftExec(t, wf, map[string]any{"file_path": "x.txt"}), "INVALID_TOOL_PARAMS", "content")
	ftWantError(t, ftExec(t, wf, `[1,2]`), "INVALID_TOOL_PARAMS")

	if got := ftReadFile(t, filepath.Join(outside, "target.txt")); got != "outside" {
		t.Errorf("outside file changed: %q", got)
	}
	for _, p := range []string{filepath.Join(outside, "missing.txt"), filepath.Join(outside, "rel-missing.txt"), filepath.Join(outside, "new.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created outside the workspace", p)
		}
	}
	if got := ftReadFile(t, filepath.Join(root, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config changed: %q", got)
	}
}

func TestWriteFileThroughInnerSymlink(t *testing.T) {
	root, ws := ftWorkspace(t)
	ftWriteFile(t, filepath.Join(root, "real.txt"), "old")
	mustSymlink(t, "real.txt", filepath.Join(root, "alias.txt"))
	res := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": "alias.txt", "content": "new"})
	ftWantOK(t, res)
	if got := ftReadFile(t, filepath.Join(root, "real.txt")); got != "new" {
		t.Errorf("target content = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(root, "alias.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file: %v", err)
	}
}

func TestWriteFileFailureKeepsOriginal(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "keep.txt")
	ftWriteFile(t, path, "original\n")
	failRename(t)
	res := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": path, "content": "replacement\n"})
	ftWantError(t, res, "FILE_WRITE_FAILURE", path)
	if got := ftReadFile(t, path); got != "original\n" {
		t.Errorf("original damaged: %q", got)
	}
	ftWantNoTempFiles(t, root)
}

// TestResolveDanglingSymlink pins the workspace fix this package's write
// tools depend on: a dangling link is judged by its target.
func TestResolveDanglingSymlink(t *testing.T) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	mustSymlink(t, filepath.Join(outside, "nothing"), filepath.Join(root, "out"))
	mustSymlink(t, filepath.Join(root, "later.txt"), filepath.Join(root, "in"))
	mustSymlink(t, "loop-b", filepath.Join(root, "loop-a"))
	mustSymlink(t, "loop-a", filepath.Join(root, "loop-b"))
	if _, err := ws.Resolve("out"); err == nil {
		t.Error("dangling link to outside accepted")
	}
	if _, err := ws.Resolve("out/sub/file"); err == nil {
		t.Error("path under a dangling link to outside accepted")
	}
	if got, err := ws.Resolve("in"); err != nil || got != filepath.Join(root, "in") {
		t.Errorf("dangling link inside: %q, %v", got, err)
	}
	if _, err := ws.Resolve("loop-a"); err == nil {
		t.Error("symlink loop accepted")
	}
}

// BenchmarkWriteFile measures one write_file call replacing a file three
// directories deep: resolution, the walk beneath the root, the temporary
// file, its fsync and the rename.
func BenchmarkWriteFile(b *testing.B) {
	_, ws := ftWorkspace(b)
	wf := NewWriteFile(ws)
	args := map[string]any{"file_path": "a/b/c/f.txt", "content": strings.Repeat("line of text\n", 100)}
	ftWantOK(b, ftExec(b, wf, args))
	for b.Loop() {
		if res := ftExec(b, wf, args); res.IsError {
			b.Fatal(res.Output)
		}
	}
}
