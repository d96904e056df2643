package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// WriteFile is the write_file tool: it creates or replaces a whole file.
type WriteFile struct{ ws *Workspace }

// NewWriteFile returns write_file confined to ws.
func NewWriteFile(ws *Workspace) *WriteFile { return &WriteFile{ws: ws} }

func (*WriteFile) Name() string { return "write_file" }
func (*WriteFile) Kind() Kind   { return KindEdit }

func (*WriteFile) Description() string {
	return "Writes content to a file, creating it (and any missing parent directories) or replacing it entirely. " +
		"Prefer the edit tool to change part of an existing file; read an existing file before overwriting it. " +
		"The write is atomic and keeps an existing file's permissions. Files inside .git directories cannot be written."
}

var writeFileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path of the file to write. A relative path is resolved against the workspace root."
    },
    "content": {
      "type": "string",
      "description": "The complete content to write to the file."
    }
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`)

func (*WriteFile) Schema() json.RawMessage { return writeFileSchema }

type writeFileParams struct {
	FilePath string  `json:"file_path"`
	Content  *string `json:"content"`
}

func (t *WriteFile) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p writeFileParams
	if r := decodeFileArgs(args, &p); r != nil {
		return *r, nil
	}
	// A missing content is refused rather than read as "": silently
	// truncating a file because an argument was dropped is the worst
	// outcome.
	if p.Content == nil {
		return Errorf("INVALID_TOOL_PARAMS", "content is required (use an empty string to write an empty file)"), nil
	}
	path, r := t.target(p.FilePath)
	if r != nil {
		return *r, nil
	}
	before, hadText := t.oldText(ctx, path)
	// Past this point the write is one short step; finishing it beats
	// leaving the model unsure whether the file changed.
	existed, err := t.ws.writeText(ctx, path, []byte(*p.Content))
	if err != nil {
		return writeErrorResult("Cannot write", path, err), nil
	}
	lines := textLineCount(*p.Content)
	rel := displayPath(t.ws, path)
	if existed {
		msg := fmt.Sprintf("Successfully overwrote file %s (%d lines).", path, lines)
		if hadText && utf8.ValidString(*p.Content) {
			msg = overwriteReport(msg, before, *p.Content, "a/"+rel, "b/"+rel)
		}
		return Result{
			Output:  msg,
			Display: fmt.Sprintf("Overwrote %s (%d lines)", rel, lines),
		}, nil
	}
	return Result{
		Output:  fmt.Sprintf("Successfully created new file %s (%d lines).", path, lines),
		Display: fmt.Sprintf("Created %s (%d lines)", rel, lines),
	}, nil
}

// writeErrorResult turns an error from Workspace.writeFile into a Result.
func writeErrorResult(what, path string, err error) Result {
	switch {
	case errors.Is(err, ErrOutsideWorkspace):
		return Errorf("PATH_OUTSIDE_WORKSPACE", "%s %s: %v%s", what, path, err, outsideWriteAdvice)
	case errors.Is(err, os.ErrPermission):
		return Errorf("PERMISSION_DENIED", "%s %s: %v", what, path, err)
	}
	return Errorf("FILE_WRITE_FAILURE", "%s %s: %v", what, path, err)
}

var _ Prechecker = (*WriteFile)(nil)

// Precheck implements Prechecker: a write Execute would refuse for its
// path (outside every root, as written or through a symbolic link; inside
// .git; a directory) fails before anyone is asked to approve it. It
// changes nothing; Execute checks again.
func (t *WriteFile) Precheck(ctx context.Context, args json.RawMessage) *Result {
	if ctx.Err() != nil {
		return nil
	}
	var p writeFileParams
	if r := decodeFileArgs(args, &p); r != nil {
		return r
	}
	_, r := t.target(p.FilePath)
	return r
}

// target resolves the path to write, or returns the error result for a
// path write_file may not write.
func (t *WriteFile) target(filePath string) (string, *Result) {
	path, r := resolveFilePath(t.ws, "file_path", filePath)
	if r != nil {
		return "", r
	}
	fail := func(r Result) (string, *Result) { return "", &r }
	if inGitDir(t.ws, path) {
		return fail(Errorf("PATH_NOT_ALLOWED", "Refusing to write %s: files inside .git directories must not be modified.", path))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fail(Errorf("TARGET_IS_DIRECTORY", "%s is a directory; write_file needs a file path.", path))
	}
	return path, nil
}

// oldText returns the text of the file write_file is about to replace,
// when it is a text file small enough to compare; ok is false otherwise.
func (t *WriteFile) oldText(ctx context.Context, path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxEditBytes {
		return "", false
	}
	data, err := t.ws.readText(ctx, path, fi.Size())
	if err != nil || looksBinary(data[:min(len(data), sniffLen)], len(data) <= sniffLen) {
		return "", false
	}
	return string(data), true
}

// overwriteMaxDiff is the longest diff an overwrite's answer shows; the
// model wrote the new content itself, so a diff of a rewritten file tells
// it little.
const overwriteMaxDiff = 40

// overwriteReport adds to msg where the lines that differ from the old
// content now are, with the lines around them numbered, and the diff when
// it is short.
func overwriteReport(msg, before, after, oldName, newName string) string {
	before, after = strings.TrimPrefix(before, utf8BOM), strings.TrimPrefix(after, utf8BOM)
	if before == after {
		return msg + " The content is the same as before."
	}
	ol, nl := indexLines(before), indexLines(after)
	// The lines the two versions share at the start and at the end are
	// unchanged; what lies between is the change.
	p := 0
	for p < ol.n() && p < nl.n() && ol.line(p) == nl.line(p) {
		p++
	}
	q := 0
	for q < ol.n()-p && q < nl.n()-p && ol.line(ol.n()-1-q) == nl.line(nl.n()-1-q) {
		q++
	}
	span := editSpan{start: ol.starts[p], end: ol.starts[ol.n()-q], newStart: nl.starts[p], newEnd: nl.starts[nl.n()-q]}
	// The regions are the lines that differ, not all between the first
	// and the last: an overwrite may change a few places far apart.
	var regions []lineRegion
	for _, c := range spanChanges(ol, nl, []editSpan{span}) {
		regions = append(regions, lineRegion{a: c.na, b: c.nb})
	}
	var sb strings.Builder
	sb.WriteString(msg)
	if w := whereNow("The changed text", 1, regions, nl.n()); w != "" {
		sb.WriteString(" " + w)
	}
	if s := snippet(nl, regions); s != "" {
		sb.WriteString("\n\n" + s)
	}
	diff := unifiedDiffContext(oldName, newName, before, after, []editSpan{span}, 0)
	if n := strings.Count(diff, "\n") + 1; n <= overwriteMaxDiff {
		sb.WriteString("\n\n" + diff)
	} else {
		removed, added := ol.n()-q-p, nl.n()-q-p
		fmt.Fprintf(&sb, "\n\n(%d old lines were replaced by %d new ones there; the diff is too long to show.)", removed, added)
	}
	return sb.String()
}

// WritePaths returns the file the call writes (PathWriter).
func (t *WriteFile) WritePaths(args json.RawMessage) ([]string, bool) { return writePaths(t.ws, args) }
