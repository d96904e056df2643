package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeTextFiles is an editor's buffers: reads return the buffer held for
// a path (or the error set), writes are recorded.
type fakeTextFiles struct {
	mu      sync.Mutex
	buffers map[string]string
	readErr error
	// noWrite makes writes unsupported.
	noWrite bool
	reads   []string
	writes  map[string]string
}

func (f *fakeTextFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, path)
	if f.readErr != nil {
		return "", f.readErr
	}
	if b, ok := f.buffers[path]; ok {
		return b, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (f *fakeTextFiles) WriteTextFile(ctx context.Context, path, content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noWrite {
		return errors.ErrUnsupported
	}
	if f.writes == nil {
		f.writes = map[string]string{}
	}
	f.writes[path] = content
	return nil
}

func TestReadFileThroughEditor(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "a.go")
	ftWriteFile(t, path, "on disk\n")
	fs := &fakeTextFiles{buffers: map[string]string{path: "unsaved\nbuffer\n"}}
	ws.SetTextFiles(fs)

	res := ftExec(t, NewReadFile(ws), map[string]any{"file_path": "a.go"})
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "unsaved") || strings.Contains(res.Output, "on disk") {
		t.Errorf("read_file did not show the editor's buffer: %q", res.Output)
	}
	if len(fs.reads) != 1 || fs.reads[0] != path {
		t.Errorf("editor reads = %q, want [%s]", fs.reads, path)
	}

	// An image is read from the disk: the editor holds text only.
	img := filepath.Join(root, "p.png")
	ftWriteFile(t, img, "\x89PNG\r\n\x1a\n"+strings.Repeat("\x00", 16))
	ftWantOK(t, ftExec(t, NewReadFile(ws), map[string]any{"file_path": img}))
	if len(fs.reads) != 1 {
		t.Errorf("an image went to the editor: %q", fs.reads)
	}

	// Outside the workspace is refused before the editor is asked.
	out := filepath.Join(t.TempDir(), "x.txt")
	ftWriteFile(t, out, "x")
	ftWantError(t, ftExec(t, NewReadFile(ws), map[string]any{"file_path": out}), "PATH_OUTSIDE_WORKSPACE")
	if len(fs.reads) != 1 {
		t.Errorf("a path outside the workspace went to the editor: %q", fs.reads)
	}

	// An editor that cannot read leaves the disk as the source; one that
	// fails says so.
	fs.readErr = errors.ErrUnsupported
	res = ftExec(t, NewReadFile(ws), map[string]any{"file_path": path})
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "on disk") {
		t.Errorf("fallback read = %q", res.Output)
	}
	fs.readErr = errors.New("buffer closed")
	ftWantError(t, ftExec(t, NewReadFile(ws), map[string]any{"file_path": path}), "READ_CONTENT_FAILURE", "buffer closed")
}

func TestWriteFileThroughEditor(t *testing.T) {
	root, ws := ftWorkspace(t)
	fs := &fakeTextFiles{}
	ws.SetTextFiles(fs)
	path := filepath.Join(root, "sub", "new.txt")

	// A new file in a directory that does not exist yet is made on the
	// disk, which creates the directories; the editor sees it there.
	ftWantOK(t, ftExec(t, NewWriteFile(ws), map[string]any{"file_path": "sub/new.txt", "content": "from ply\n"}))
	if len(fs.writes) != 0 || ftReadFile(t, path) != "from ply\n" {
		t.Errorf("new directory: editor writes %q", fs.writes)
	}
	res := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": "sub/new.txt", "content": "again\n"})
	ftWantOK(t, res)
	if fs.writes[path] != "again\n" {
		t.Errorf("editor writes = %q", fs.writes)
	}
	if got := ftReadFile(t, path); got != "from ply\n" {
		t.Errorf("the write also went to the disk: %q", got)
	}

	// The checks stay: .git, outside the workspace, a link into .git.
	ftWriteFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	mustSymlink(t, filepath.Join(root, ".git"), filepath.Join(root, "gitlink"))
	ftWantError(t, ftExec(t, NewWriteFile(ws), map[string]any{"file_path": ".git/config", "content": "x"}), "PATH_NOT_ALLOWED")
	ftWantError(t, ftExec(t, NewWriteFile(ws), map[string]any{"file_path": filepath.Join(t.TempDir(), "o.txt"), "content": "x"}), "PATH_OUTSIDE_WORKSPACE")
	res = ftExec(t, NewWriteFile(ws), map[string]any{"file_path": "gitlink/config", "content": "x"})
	if !res.IsError {
		t.Errorf("a write through a link into .git passed: %+v", res)
	}
	if len(fs.writes) != 1 {
		t.Errorf("a refused write reached the editor: %q", fs.writes)
	}

	// Bytes JSON cannot carry as they are go to the disk: an edit of a
	// file read from the disk with invalid UTF-8 past the binary sniff.
	fs.readErr = errors.ErrUnsupported
	bad := filepath.Join(root, "latin1.txt")
	ftWriteFile(t, bad, strings.Repeat("x", 2*sniffLen)+"\ncaf\xe9 old\n")
	ftWantOK(t, ftExec(t, NewEdit(ws), map[string]any{"file_path": bad, "old_string": "old", "new_string": "new"}))
	if _, ok := fs.writes[bad]; ok {
		t.Error("invalid UTF-8 went to the editor")
	}
	if got := ftReadFile(t, bad); !strings.HasSuffix(got, "caf\xe9 new\n") {
		t.Errorf("disk after the edit: %q", got[len(got)-12:])
	}

	// An editor that cannot write leaves the disk as the sink.
	fs.noWrite = true
	disk := filepath.Join(root, "disk.txt")
	ftWantOK(t, ftExec(t, NewWriteFile(ws), map[string]any{"file_path": disk, "content": "d\n"}))
	if got := ftReadFile(t, disk); got != "d\n" {
		t.Errorf("fallback write: %q", got)
	}
}

func TestEditThroughEditor(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "m.go")
	ftWriteFile(t, path, "saved version\n")
	fs := &fakeTextFiles{buffers: map[string]string{path: "unsaved version\n"}}
	ws.SetTextFiles(fs)
	ed := NewEdit(ws)

	// old_string only in the buffer: the precheck and the edit both see
	// the buffer.
	args := map[string]any{"file_path": path, "old_string": "unsaved", "new_string": "edited"}
	if r := ed.Precheck(context.Background(), mustJSONArgs(t, args)); r != nil {
		t.Fatalf("precheck against the buffer failed: %+v", r)
	}
	res := ftExec(t, ed, args)
	ftWantOK(t, res)
	if fs.writes[path] != "edited version\n" {
		t.Errorf("editor writes = %q", fs.writes)
	}
	if got := ftReadFile(t, path); got != "saved version\n" {
		t.Errorf("the disk changed: %q", got)
	}
	if !strings.Contains(res.Output, "-unsaved version") || !strings.Contains(res.Output, "+edited version") {
		t.Errorf("diff = %q", res.Output)
	}

	// A new file from an empty old_string goes through the editor too.
	nf := filepath.Join(root, "n.txt")
	ftWantOK(t, ftExec(t, ed, map[string]any{"file_path": nf, "old_string": "", "new_string": "new\n"}))
	if fs.writes[nf] != "new\n" {
		t.Errorf("editor writes = %q", fs.writes)
	}
}

func mustJSONArgs(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadManyFilesThroughEditor(t *testing.T) {
	root, ws := ftWorkspace(t)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	ftWriteFile(t, a, "disk a\n")
	ftWriteFile(t, b, "disk b\n")
	fs := &fakeTextFiles{buffers: map[string]string{a: "buffer a\n"}}
	ws.SetTextFiles(fs)
	res := ftExec(t, NewReadManyFiles(ws), map[string]any{"paths": []string{"a.txt", "b.txt"}})
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "buffer a") || strings.Contains(res.Output, "disk a") || !strings.Contains(res.Output, "disk b") {
		t.Errorf("read_many_files did not read as the editor has the files:\n%s", res.Output)
	}
	if len(fs.reads) != 2 {
		t.Errorf("editor reads = %q", fs.reads)
	}
}
