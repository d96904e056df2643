package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
)

// Proposal is what a call that writes one file would leave in it.
type Proposal struct {
	// Path is the file's absolute path.
	Path string
	// Before is its text now ("" for a file the call creates); After is
	// its whole text after the call.
	Before, After string
}

// Proposer is implemented by the tools that write one text file: it says,
// without changing anything, what the file would hold after a call, so
// that the whole change can be reviewed (in an editor's diff view), and
// turns the reviewer's own version of the file back into arguments of the
// same tool.
type Proposer interface {
	// Propose returns the file's text after the call; ok is false when
	// the call would fail or the file is not text Propose can read.
	Propose(ctx context.Context, args json.RawMessage) (p Proposal, ok bool)
	// WithContent returns args changed so that the call leaves the file
	// holding content, given the Proposal made for args.
	WithContent(args json.RawMessage, p Proposal, content string) (json.RawMessage, error)
}

var (
	_ Proposer = (*Edit)(nil)
	_ Proposer = (*WriteFile)(nil)
)

// Propose implements Proposer: the edit applied to the file's current
// text, as Execute would apply it.
func (t *Edit) Propose(ctx context.Context, args json.RawMessage) (Proposal, bool) {
	var p editParams
	if decodeFileArgs(args, &p) != nil || p.OldString == nil || p.NewString == nil {
		return Proposal{}, false
	}
	path, r := resolveFilePath(t.ws, "file_path", p.FilePath)
	if r != nil || inGitDir(t.ws, path) {
		return Proposal{}, false
	}
	before, exists, ok := t.ws.currentText(ctx, path)
	if !ok {
		return Proposal{}, false
	}
	if !exists {
		if *p.OldString != "" {
			return Proposal{}, false
		}
		return Proposal{Path: path, After: *p.NewString}, true
	}
	o, err := matchEdit(before, *p.OldString, *p.NewString, p.ReplaceAll)
	if err != nil {
		return Proposal{}, false
	}
	return Proposal{Path: path, Before: before, After: o.content}, true
}

// WithContent implements Proposer: the whole text the file holds now is
// replaced by content, which the edit tool matches exactly once.
func (t *Edit) WithContent(args json.RawMessage, p Proposal, content string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, err
	}
	body := strings.TrimPrefix(p.Before, utf8BOM)
	newBody := strings.TrimPrefix(content, utf8BOM)
	if body == newBody {
		return nil, errors.New("the reviewed text is the file's text as it is: nothing to change")
	}
	if body != "" && usesCRLF(body) && toCRLF(body) != body {
		// The edit tool would rewrite the old text's mixed line endings
		// before matching it, and find nothing.
		return nil, errors.New("the file mixes line endings, so the reviewed text cannot be applied as one edit")
	}
	m["old_string"], m["new_string"] = body, newBody
	delete(m, "replace_all")
	return json.Marshal(m)
}

// Propose implements Proposer: the content the call writes.
func (t *WriteFile) Propose(ctx context.Context, args json.RawMessage) (Proposal, bool) {
	var p writeFileParams
	if decodeFileArgs(args, &p) != nil || p.Content == nil {
		return Proposal{}, false
	}
	path, r := t.target(p.FilePath)
	if r != nil {
		return Proposal{}, false
	}
	before, _, ok := t.ws.currentText(ctx, path)
	if !ok {
		return Proposal{}, false
	}
	return Proposal{Path: path, Before: before, After: *p.Content}, true
}

// WithContent implements Proposer: the content written is the reviewer's.
func (t *WriteFile) WithContent(args json.RawMessage, _ Proposal, content string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, err
	}
	m["content"] = content
	return json.Marshal(m)
}

// currentText returns the text of the file at path: exists is false when
// there is none; ok is false when it cannot be read as text of a size the
// edit tool handles.
func (w *Workspace) currentText(ctx context.Context, path string) (text string, exists, ok bool) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", false, true
	case err != nil, !fi.Mode().IsRegular(), fi.Size() > maxEditBytes:
		return "", false, false
	}
	data, err := w.readText(ctx, path, fi.Size())
	if err != nil || looksBinary(data[:min(len(data), sniffLen)], len(data) <= sniffLen) {
		return "", false, false
	}
	return string(data), true, true
}
