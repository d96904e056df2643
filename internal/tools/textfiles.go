package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// TextFiles is where the file tools read and write text when an editor
// drives ply: its open buffers, unsaved changes included, are what the
// user sees. Only the bytes come from it and go to it: every path is
// checked as for the disk first (the workspace roots, .git, and whatever
// the permission policy decided before the call ran). A method that
// returns errors.ErrUnsupported leaves the disk as the source or sink.
type TextFiles interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// maxEditorText is the largest file (by its size on disk) read through
// the editor; a larger one is read from the disk, as one message carrying
// it would be too big for the protocol.
const maxEditorText = 4 << 20

// SetTextFiles makes f the source and sink of the file tools' text; nil
// restores the disk.
func (w *Workspace) SetTextFiles(f TextFiles) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files = f
}

func (w *Workspace) textFiles() TextFiles {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.files
}

// editorText is the editor's text of path, a checked regular file of
// size bytes on disk; ok is false when the disk is the source.
func (w *Workspace) editorText(ctx context.Context, path string, size int64) (text string, ok bool, err error) {
	f := w.textFiles()
	if f == nil || size > maxEditorText {
		return "", false, nil
	}
	text, err = f.ReadTextFile(ctx, path)
	if errors.Is(err, errors.ErrUnsupported) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading %s from the editor: %w", path, err)
	}
	return text, true, nil
}

// readText is the content of path, a checked regular file of size bytes:
// the editor's text when it has one, otherwise the disk's bytes.
func (w *Workspace) readText(ctx context.Context, path string, size int64) ([]byte, error) {
	text, ok, err := w.editorText(ctx, path, size)
	if err != nil {
		return nil, err
	}
	if ok {
		return []byte(text), nil
	}
	return os.ReadFile(path)
}

// writeText replaces the file at path, a path Resolve accepted, with
// data: through the editor when there is one and data is text it can
// carry, otherwise on the disk (writeFile). It reports whether the file
// existed before.
func (w *Workspace) writeText(ctx context.Context, path string, data []byte) (existed bool, err error) {
	f := w.textFiles()
	if f == nil || !utf8.Valid(data) {
		return w.writeFile(path, data)
	}
	// The editor writes by name, so the checks writeFile makes on the
	// way down are made here on the path's target: still beneath a root,
	// not inside a .git directory.
	real, err := realPath(path)
	if err != nil {
		return false, err
	}
	if _, _, ok := w.split(real); !ok {
		return false, w.outside(path)
	}
	if inGitDir(w, real) {
		return false, fmt.Errorf("%s leads into a .git directory (%s): files inside .git directories must not be modified", path, real)
	}
	if _, err := os.Stat(filepath.Dir(real)); errors.Is(err, os.ErrNotExist) {
		// An editor may not create directories: the disk write does,
		// and the editor sees the new file there.
		return w.writeFile(path, data)
	}
	_, statErr := os.Stat(path)
	err = f.WriteTextFile(ctx, path, string(data))
	if errors.Is(err, errors.ErrUnsupported) {
		return w.writeFile(path, data)
	}
	if err != nil {
		return false, fmt.Errorf("writing %s through the editor: %w", path, err)
	}
	return statErr == nil, nil
}
