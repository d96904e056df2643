package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

const (
	// maxEditBytes caps the file edit loads: the whole file is held in
	// memory, several times over when the tolerant match runs.
	maxEditBytes = 32 << 20
	// diffContext is how many unchanged lines surround each hunk.
	diffContext = 3
	// maxDiffLines caps the diff returned, so that replace_all on a large
	// file does not echo it all back.
	maxDiffLines = 150
)

// Edit is the edit tool: it replaces exact text in a file.
type Edit struct{ ws *Workspace }

// NewEdit returns edit confined to ws.
func NewEdit(ws *Workspace) *Edit { return &Edit{ws: ws} }

func (*Edit) Name() string { return "edit" }
func (*Edit) Kind() Kind   { return KindEdit }

func (*Edit) Description() string {
	return "Replaces text in a file. Read the file first. old_string must match the file's current text exactly, " +
		"including indentation, whitespace and line breaks, and must identify exactly one place: include enough " +
		"surrounding lines to make it unique, or set replace_all to replace every occurrence. If there is no exact " +
		"match, a match that ignores curly versus straight quotes, dash styles, non-breaking spaces and trailing " +
		"whitespace is tried. new_string is inserted literally. CRLF line endings and a byte-order mark are preserved. " +
		"To create a new file, give a file_path that does not exist and an empty old_string. " +
		"The answer shows the changed lines numbered as read_file numbers them, and a diff."
}

var editSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path of the file to modify. A relative path is resolved against the workspace root."
    },
    "old_string": {
      "type": "string",
      "description": "The exact text to replace, copied from the file with its indentation and line breaks; without replace_all it must occur exactly once. Empty to create a new file."
    },
    "new_string": {
      "type": "string",
      "description": "The text to replace old_string with, exactly as it should appear in the file. Must differ from old_string."
    },
    "replace_all": {
      "type": "boolean",
      "default": false,
      "description": "Replace every occurrence of old_string instead of requiring exactly one (for example to rename a variable)."
    }
  },
  "required": ["file_path", "old_string", "new_string"],
  "additionalProperties": false
}`)

func (*Edit) Schema() json.RawMessage { return editSchema }

type editParams struct {
	FilePath   string  `json:"file_path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

func (t *Edit) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p editParams
	if r := decodeFileArgs(args, &p); r != nil {
		return *r, nil
	}
	if p.OldString == nil || p.NewString == nil {
		return Errorf("INVALID_TOOL_PARAMS", "old_string and new_string are both required"), nil
	}
	oldStr, newStr := *p.OldString, *p.NewString
	path, r := resolveFilePath(t.ws, "file_path", p.FilePath)
	if r != nil {
		return *r, nil
	}
	if inGitDir(t.ws, path) {
		return Errorf("PATH_NOT_ALLOWED", "Refusing to edit %s: files inside .git directories must not be modified.", path), nil
	}
	if oldStr == newStr {
		return Errorf("EDIT_NO_CHANGE", "Failed to edit %s: old_string and new_string are identical, so the edit would change nothing.", path), nil
	}

	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if oldStr != "" {
			return Errorf("FILE_NOT_FOUND", "File not found: %s. To create a new file, call edit with an empty old_string, or use write_file.", path), nil
		}
		return t.create(ctx, path, newStr), nil
	case err != nil:
		return fileErrorResult(path, err), nil
	case fi.IsDir():
		return Errorf("TARGET_IS_DIRECTORY", "%s is a directory, not a file.", path), nil
	case !fi.Mode().IsRegular():
		return Errorf("FILE_WRITE_FAILURE", "%s is not a regular file (%s); it cannot be edited.", path, fi.Mode().Type()), nil
	case fi.Size() > maxEditBytes:
		return Errorf("FILE_TOO_LARGE", "%s is %d bytes; edit handles files up to %d bytes.", path, fi.Size(), maxEditBytes), nil
	}
	data, err := t.ws.readText(ctx, path, fi.Size())
	if err != nil {
		return fileErrorResult(path, err), nil
	}
	head := data[:min(len(data), sniffLen)]
	if looksBinary(head, len(data) <= sniffLen) {
		return Errorf("BINARY_FILE", "Cannot edit %s: it is a binary file.", path), nil
	}
	content := string(data)
	o, err := matchEdit(content, oldStr, newStr, p.ReplaceAll)
	if err != nil {
		return editErrorResult(path, err), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if _, err := t.ws.writeText(ctx, path, []byte(o.content)); err != nil {
		return writeErrorResult("Cannot write", path, err), nil
	}

	rel := displayPath(t.ws, path)
	before, after := strings.TrimPrefix(content, o.bom), strings.TrimPrefix(o.content, o.bom)
	diff := unifiedDiff("a/"+rel, "b/"+rel, before, after, o.spans)
	msg := fmt.Sprintf("The file %s has been updated (%d replacement%s).", path, o.count, plural(o.count))
	if o.tolerant {
		msg += " old_string did not match exactly; it was matched ignoring quote, dash and space styles and trailing whitespace."
	}
	return Result{Output: changeReport(msg, "The new text", o.count, after, o.spans, "a/"+rel, "b/"+rel, before), Display: diff}, nil
}

// changeReport is msg, then where the change now is with the lines around
// it numbered, then the diff without context lines (the numbered lines
// show them), so that the model can go on editing without reading the
// file again.
func changeReport(msg, what string, count int, after string, spans []editSpan, oldName, newName, before string) string {
	nl := indexLines(after)
	regions := spanRegions(nl, spans)
	var sb strings.Builder
	sb.WriteString(msg)
	if w := whereNow(what, count, regions, nl.n()); w != "" {
		sb.WriteString(" " + w)
	}
	if s := snippet(nl, regions); s != "" {
		sb.WriteString("\n\n" + s)
	}
	sb.WriteString("\n\n" + unifiedDiffContext(oldName, newName, before, after, spans, 0))
	return sb.String()
}

// create makes a new file holding content, as asked by an empty old_string.
func (t *Edit) create(ctx context.Context, path, content string) Result {
	if _, err := t.ws.writeText(ctx, path, []byte(content)); err != nil {
		return writeErrorResult("Cannot create", path, err)
	}
	diff := unifiedDiff("/dev/null", "b/"+displayPath(t.ws, path), "", content,
		[]editSpan{{start: 0, end: 0, newStart: 0, newEnd: len(content)}})
	n := textLineCount(content)
	msg := fmt.Sprintf("Created new file %s (%d line%s).", path, n, plural(n))
	return Result{Output: msg + "\n\n" + diff, Display: diff}
}

func editErrorResult(path string, err error) Result {
	var ce *editCountError
	switch {
	case errors.As(err, &ce):
		where := ""
		if len(ce.lines) > 0 {
			where = fmt.Sprintf(" (%s %s)", pluralOf(len(ce.lines), "line", "lines"), joinList(ce.lines))
		}
		return Errorf("EDIT_EXPECTED_OCCURRENCE_MISMATCH", "Failed to edit %s: old_string matches %d places%s, but exactly 1 is expected. "+
			"Include more surrounding lines in old_string to identify the one to change, or set replace_all to true to replace all %d.",
			path, ce.count, where, ce.count)
	case errors.Is(err, errEditNoMatch):
		hint := "The file may have changed, or old_string differs in whitespace or indentation. Use read_file to see the current content."
		var ne *editNoMatchError
		if errors.As(err, &ne) && ne.hint != "" {
			hint = ne.hint
		}
		return Errorf("EDIT_NO_OCCURRENCE_FOUND", "Failed to edit %s: 0 occurrences of old_string found (also compared ignoring quote, dash "+
			"and space styles and trailing whitespace). %s\nRetry with old_string copied exactly from the file, without read_file's line-number prefixes.", path, hint)
	case errors.Is(err, errEditEmptyOld):
		return Errorf("ATTEMPT_TO_CREATE_EXISTING_FILE", "Failed to edit %s: an empty old_string only creates a new file, but this file "+
			"exists and is not empty. Give the exact text to replace as old_string, or use write_file to replace the whole file.", path)
	case errors.Is(err, errEditNoChange):
		return Errorf("EDIT_NO_CHANGE", "Failed to edit %s: the replacement leaves the file unchanged.", path)
	}
	return Errorf("FILE_WRITE_FAILURE", "Failed to edit %s: %v", path, err)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// textLines indexes the lines of a text for diffing.
type textLines struct {
	s      string
	starts []int // start of each line, then len(s)
}

func indexLines(s string) textLines {
	t := textLines{s: s, starts: []int{0}}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && i+1 < len(s) {
			t.starts = append(t.starts, i+1)
		}
	}
	if s == "" {
		t.starts = t.starts[:0]
	}
	t.starts = append(t.starts, len(s))
	return t
}

func (t textLines) n() int { return len(t.starts) - 1 }

// line returns line i with its terminator.
func (t textLines) line(i int) string { return t.s[t.starts[i]:t.starts[i+1]] }

// containing is the index of the line holding byte off; the end of an
// unterminated last line belongs to it, the end of a terminated one is
// n (the line after the last).
func (t textLines) containing(off int) int {
	i := sort.SearchInts(t.starts[:t.n()], off+1) - 1
	if off == len(t.s) && (t.s == "" || t.s[len(t.s)-1] == '\n') {
		return t.n()
	}
	return max(i, 0)
}

func atLineStart(s string, off int) bool { return off == 0 || s[off-1] == '\n' }

// lineChange says old lines [oa, ob) became new lines [na, nb).
type lineChange struct{ oa, ob, na, nb int }

// unifiedDiff renders the changes of spans between oldText and newText as
// a unified diff with diffContext lines of context. Knowing the spans
// avoids a general diff: each span maps to the lines it touched.
func unifiedDiff(oldName, newName, oldText, newText string, spans []editSpan) string {
	return unifiedDiffContext(oldName, newName, oldText, newText, spans, diffContext)
}

// unifiedDiffContext is unifiedDiff with context lines of context. Each
// hunk header names the function (or class, or other declaration) the
// hunk is in, as git diff does.
func unifiedDiffContext(oldName, newName, oldText, newText string, spans []editSpan, context int) string {
	ol, nl := indexLines(oldText), indexLines(newText)
	changes := spanChanges(ol, nl, spans)

	var out []string
	out = append(out, "--- "+oldName, "+++ "+newName)
	for i := 0; i < len(changes); {
		// Gather the changes whose context touches into one hunk.
		j := i + 1
		for j < len(changes) && changes[j].oa-context <= changes[j-1].ob+context {
			j++
		}
		first, last := changes[i], changes[j-1]
		hs := max(first.oa-context, 0)
		he := min(last.ob+context, ol.n())
		newStart := first.na - (first.oa - hs)
		var body []string
		pos := hs
		added, removed := 0, 0
		for _, c := range changes[i:j] {
			for ; pos < c.oa; pos++ {
				body = append(body, diffLine(' ', ol, pos))
			}
			for k := c.oa; k < c.ob; k++ {
				body = append(body, diffLine('-', ol, k))
			}
			for k := c.na; k < c.nb; k++ {
				body = append(body, diffLine('+', nl, k))
			}
			removed += c.ob - c.oa
			added += c.nb - c.na
			pos = c.ob
		}
		for ; pos < he; pos++ {
			body = append(body, diffLine(' ', ol, pos))
		}
		oldCount := he - hs
		header := fmt.Sprintf("@@ -%s +%s @@", hunkRange(hs, oldCount), hunkRange(newStart, oldCount-removed+added))
		if len(out) < maxDiffLines {
			// Only for the hunks shown: the search looks back through
			// the file, which a replace_all with many hunks would
			// repeat for each.
			if fn := enclosingDecl(ol, nl, hs, first); fn != "" {
				header += " " + fn
			}
		}
		out = append(out, header)
		out = append(out, body...)
		i = j
	}
	if len(out) > maxDiffLines {
		more := len(out) - maxDiffLines
		out = append(out[:maxDiffLines], fmt.Sprintf("... (diff truncated: %d more lines)", more))
	}
	return strings.Join(out, "\n")
}

// spanChanges maps the spans to the lines they changed, in file order,
// without the unchanged lines at their edges or within them.
func spanChanges(ol, nl textLines, spans []editSpan) []lineChange {
	oldText, newText := ol.s, nl.s
	var changes []lineChange
	for _, s := range spans {
		c := lineChange{oa: ol.containing(s.start), na: nl.containing(s.newStart)}
		if atLineStart(oldText, s.end) && atLineStart(newText, s.newEnd) {
			// The rest of the text starts a fresh line in both versions,
			// so the line holding the end is unchanged.
			c.ob, c.nb = ol.containing(s.end), nl.containing(s.newEnd)
		} else {
			c.ob, c.nb = min(ol.containing(s.end)+1, ol.n()), min(nl.containing(s.newEnd)+1, nl.n())
		}
		c.ob, c.nb = max(c.ob, c.oa), max(c.nb, c.na)
		if k := len(changes) - 1; k >= 0 && c.oa < changes[k].ob {
			// Two spans on one line are one change of that line.
			changes[k].ob, changes[k].nb = max(changes[k].ob, c.ob), c.nb
			continue
		}
		changes = append(changes, c)
	}
	// Drop the unchanged lines at the edges of each change, such as the
	// lines of context the model put into old_string.
	trimmed := changes[:0]
	for _, c := range changes {
		for c.oa < c.ob && c.na < c.nb && ol.line(c.oa) == nl.line(c.na) {
			c.oa, c.na = c.oa+1, c.na+1
		}
		for c.oa < c.ob && c.na < c.nb && ol.line(c.ob-1) == nl.line(c.nb-1) {
			c.ob, c.nb = c.ob-1, c.nb-1
		}
		if c.oa == c.ob && c.na == c.nb {
			continue
		}
		if k := len(trimmed) - 1; k >= 0 && c.oa == trimmed[k].ob {
			// Changes on consecutive lines read better as one block of
			// removals followed by one of additions.
			trimmed[k].ob, trimmed[k].nb = c.ob, c.nb
			continue
		}
		trimmed = append(trimmed, c)
	}
	// Lines a change leaves as they were, such as an unchanged line
	// between two changed ones, are shown as context, not as removed and
	// added again.
	var out []lineChange
	for _, c := range trimmed {
		out = append(out, minimalChanges(ol, nl, c)...)
	}
	return out
}

// hunkRange formats a hunk's line range the way unified diffs do: 1-based,
// and an empty range names the line before it.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// diffLine renders line i with its mark. The terminator (and a CR, which
// would garble a terminal) is dropped; a missing final newline is noted as
// diff does.
func diffLine(mark byte, t textLines, i int) string {
	l := t.line(i)
	if !strings.HasSuffix(l, "\n") {
		return string(mark) + strings.TrimSuffix(l, "\r") + "\n\\ No newline at end of file"
	}
	return string(mark) + strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
}

// WritePaths returns the file the call edits (PathWriter).
func (t *Edit) WritePaths(args json.RawMessage) ([]string, bool) { return writePaths(t.ws, args) }
