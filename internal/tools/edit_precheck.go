package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
)

// Prechecker is implemented by tools that can tell, without changing
// anything, that a call would fail. The scheduler asks before it asks the
// user, so that no one approves a call that cannot succeed.
type Prechecker interface {
	// Precheck returns the error result the call would end with, or nil
	// when it may succeed. It must not change anything.
	Precheck(ctx context.Context, args json.RawMessage) *Result
}

var _ Prechecker = (*Edit)(nil)

// Precheck implements Prechecker: it reads the file and matches old_string
// as Execute does, and returns Execute's error for an edit that cannot
// apply: old_string found nowhere or in several places without
// replace_all, a missing file, identical strings, a directory or a binary
// file. The file may still change before Execute, which checks again.
func (t *Edit) Precheck(ctx context.Context, args json.RawMessage) *Result {
	if ctx.Err() != nil {
		return nil
	}
	var p editParams
	if r := decodeFileArgs(args, &p); r != nil {
		return r
	}
	if p.OldString == nil || p.NewString == nil {
		return nil // Execute says what is missing
	}
	oldStr, newStr := *p.OldString, *p.NewString
	path, r := resolveFilePath(t.ws, "file_path", p.FilePath)
	if r != nil || inGitDir(t.ws, path) {
		return r // .git: the permission policy and Execute both refuse
	}
	fail := func(r Result) *Result { return &r }
	if oldStr == newStr {
		return fail(Errorf("EDIT_NO_CHANGE", "Failed to edit %s: old_string and new_string are identical, so the edit would change nothing.", path))
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if oldStr != "" {
			return fail(Errorf("FILE_NOT_FOUND", "File not found: %s. To create a new file, call edit with an empty old_string, or use write_file.", path))
		}
		return nil
	case err != nil, !fi.Mode().IsRegular(), fi.Size() > maxEditBytes:
		return nil // Execute reports these with its own wording
	}
	data, err := t.ws.readText(ctx, path, fi.Size())
	if err != nil {
		return nil
	}
	if looksBinary(data[:min(len(data), sniffLen)], len(data) <= sniffLen) {
		return fail(Errorf("BINARY_FILE", "Cannot edit %s: it is a binary file.", path))
	}
	if _, err := matchEdit(string(data), oldStr, newStr, p.ReplaceAll); err != nil {
		return fail(editErrorResult(path, err))
	}
	return nil
}
