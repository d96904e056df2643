package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

const (
	// readDefaultLimit is how many lines read_file returns when the model
	// gives no limit.
	readDefaultLimit = 1000
	// readMaxChars caps the file text of one read_file answer, so that a
	// file of long lines cannot flood the context window.
	readMaxChars = 25000
	// readMaxLineChars caps one line; minified code and data lines are
	// cut rather than allowed to eat the whole budget.
	readMaxLineChars = 2000
	// sniffLen is how much of a file decides whether it is text.
	sniffLen = 8 << 10
	// maxImageBytes caps an image returned inline.
	maxImageBytes = 10 << 20
)

const utf8BOM = "\uFEFF"

// ReadFile is the read_file tool: a window of lines of a text file, or an
// image as inline data.
type ReadFile struct{ ws *Workspace }

// NewReadFile returns read_file confined to ws.
func NewReadFile(ws *Workspace) *ReadFile { return &ReadFile{ws: ws} }

func (*ReadFile) Name() string { return "read_file" }
func (*ReadFile) Kind() Kind   { return KindRead }

func (*ReadFile) Description() string {
	return "Reads a file from the local filesystem and returns its content. " +
		"Text files are returned with line numbers, as cat -n shows them: the number, right-aligned in 6 columns, " +
		"then a tab, then the line exactly as it is in the file. The number and the tab are not part of the file: " +
		"never copy them into edit's old_string or new_string. " +
		"At most 1000 lines and 25000 characters are returned per call; " +
		"lines longer than 2000 characters are truncated. When the file is longer, the answer starts " +
		"with a line such as \"Showing lines 1-1000 of 5000 total lines.\" and tells you the offset to pass " +
		"next; use offset and limit to read a specific part of a large file. " +
		"PNG, JPEG, GIF and WebP images are returned as images. Other binary files are refused. " +
		"Use list_directory for directories."
}

var readFileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path of the file to read. A relative path is resolved against the workspace root."
    },
    "offset": {
      "type": ["integer", "string"],
      "minimum": 0,
      "description": "The 0-based line number to start reading from. Only needed for files too large to read at once; use it with limit to page through the file."
    },
    "limit": {
      "type": ["integer", "string"],
      "minimum": 1,
      "description": "The maximum number of lines to read (default 1000). Only needed for large files."
    }
  },
  "required": ["file_path"],
  "additionalProperties": false
}`)

func (*ReadFile) Schema() json.RawMessage { return readFileSchema }

type readFileParams struct {
	FilePath string `json:"file_path"`
	Offset   *int   `json:"offset"`
	Limit    *int   `json:"limit"`
}

func (t *ReadFile) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p readFileParams
	if r := decodeFileArgs(args, &p); r != nil {
		return *r, nil
	}
	offset, limit := 0, readDefaultLimit
	if p.Offset != nil {
		if *p.Offset < 0 {
			return Errorf("INVALID_TOOL_PARAMS", "offset must be 0 or more, got %d", *p.Offset), nil
		}
		offset = *p.Offset
	}
	if p.Limit != nil {
		if *p.Limit < 1 {
			return Errorf("INVALID_TOOL_PARAMS", "limit must be 1 or more, got %d", *p.Limit), nil
		}
		limit = *p.Limit
	}
	path, r := resolveReadPath(t.ws, "file_path", p.FilePath)
	if r != nil {
		return *r, nil
	}

	// Stat before opening: opening a FIFO for reading would block until
	// some writer appears.
	fi, err := os.Stat(path)
	if err != nil {
		return fileErrorResult(path, err), nil
	}
	if fi.IsDir() {
		return Errorf("TARGET_IS_DIRECTORY", "%s is a directory, not a file. Use list_directory to see its entries.", path), nil
	}
	if !fi.Mode().IsRegular() {
		return Errorf("READ_CONTENT_FAILURE", "%s is not a regular file (%s); it cannot be read.", path, fi.Mode().Type()), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fileErrorResult(path, err), nil
	}
	defer f.Close()

	br := getLineReader(f)
	defer putLineReader(br) // everything read from it is copied out
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return Errorf("READ_CONTENT_FAILURE", "reading %s: %v", path, err), nil
	}
	if mime := imageMIME(head); mime != "" {
		return readImage(br, path, fi.Size(), mime), nil
	}
	if looksBinary(head, len(head) < sniffLen) {
		return Errorf("BINARY_FILE", "Cannot read %s: it is a binary file (NUL bytes or invalid text in its first 8 KiB). "+
			"Only text files and PNG, JPEG, GIF or WebP images can be read.", path), nil
	}
	// A text file an editor holds is read as the editor has it.
	if text, ok, err := t.ws.editorText(ctx, path, fi.Size()); err != nil {
		return Errorf("READ_CONTENT_FAILURE", "%v", err), nil
	} else if ok {
		br = bufio.NewReader(strings.NewReader(text))
	}
	return t.readText(ctx, br, path, offset, limit, p.Limit != nil)
}

// readText returns lines [offset, offset+limit) of the stream, within the
// character budget, and scans on to the end only to count the lines.
func (t *ReadFile) readText(ctx context.Context, br *bufio.Reader, path string, offset, limit int, explicitLimit bool) (Result, error) {
	sc := &lineScanner{r: br}
	skipped, err := sc.skip(ctx, offset)
	if err != nil {
		return readFailure(path, err)
	}
	if skipped < offset {
		return pastEnd(path, offset, sc.totalLines()), nil
	}

	var body strings.Builder
	chars, shown, cutLines := 0, 0, 0
	byBudget := false
	for shown < limit {
		if shown%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		raw, truncated, ok, err := sc.readLine(readMaxLineChars * utf8.UTFMax)
		if err != nil {
			return readFailure(path, err)
		}
		if !ok {
			break
		}
		line := strings.ToValidUTF8(string(raw), "\uFFFD")
		if offset+shown == 0 {
			line = strings.TrimPrefix(line, utf8BOM)
		}
		if cut, ok := cutRunes(line, readMaxLineChars); ok {
			line, truncated = cut, true
		}
		if truncated {
			line += " ... [line truncated]"
		}
		n := utf8.RuneCountInString(line) + 1
		if shown > 0 && chars+n > readMaxChars {
			// This line was consumed but is not shown; the scan below
			// still counts it, and the next offset points at it.
			byBudget = true
			break
		}
		if shown > 0 {
			body.WriteByte('\n')
		}
		prefix := numberPrefix(offset + shown + 1)
		body.WriteString(prefix)
		body.WriteString(line)
		chars += n + len(prefix)
		shown++
		if truncated {
			cutLines++
		}
	}
	if err := sc.countRest(ctx); err != nil {
		return readFailure(path, err)
	}
	total := sc.totalLines()
	if shown == 0 && offset > 0 {
		// offset named the line just after the last one.
		return pastEnd(path, offset, total), nil
	}
	rel := displayPath(t.ws, path)
	if total == 0 {
		return Result{Output: fmt.Sprintf("The file %s is empty.", path), Display: "Read " + rel + " (empty)"}, nil
	}

	start, end := offset+1, offset+shown
	var head []string
	if offset > 0 || end < total {
		head = append(head, fmt.Sprintf("Showing lines %d-%d of %d total lines.", start, end, total))
	}
	switch {
	case end < total && byBudget:
		head = append(head, fmt.Sprintf("The content was cut (output capped at %d characters). To read more, call read_file again with offset: %d.", readMaxChars, end))
	case end < total && explicitLimit:
		head = append(head, fmt.Sprintf("To read on, call read_file again with offset: %d.", end))
	case end < total:
		head = append(head, fmt.Sprintf("The content was cut (line limit %d reached). To read more, call read_file again with offset: %d.", limit, end))
	}
	if cutLines > 0 {
		head = append(head, fmt.Sprintf("%d line(s) longer than %d characters were truncated.", cutLines, readMaxLineChars))
	}
	out := body.String()
	if len(head) > 0 {
		out = strings.Join(head, "\n") + "\n\n" + out
	}
	display := fmt.Sprintf("Read %s (%d lines)", rel, total)
	if shown < total {
		display = fmt.Sprintf("Read lines %d-%d of %d from %s", start, end, total, rel)
	}
	return Result{Output: out, Display: display}, nil
}

// numberPrefix is what read_file puts before line n: cat -n's shape, the
// number right-aligned in six columns and a tab.
func numberPrefix(n int) string {
	return fmt.Sprintf("%6d\t", n)
}

func pastEnd(path string, offset, total int) Result {
	return Errorf("INVALID_TOOL_PARAMS", "offset %d is beyond the end of %s, which has %d lines.", offset, path, total)
}

func readFailure(path string, err error) (Result, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Result{}, err
	}
	return Errorf("READ_CONTENT_FAILURE", "reading %s: %v", path, err), nil
}

// readImage returns the whole image as inline data.
func readImage(r io.Reader, path string, size int64, mime string) Result {
	if size > maxImageBytes {
		return Errorf("FILE_TOO_LARGE", "Image %s is %d bytes; images larger than %d bytes cannot be read.", path, size, maxImageBytes)
	}
	// The limit guards against a file that grew since Stat.
	data, err := io.ReadAll(io.LimitReader(r, maxImageBytes+1))
	if err != nil {
		return Errorf("READ_CONTENT_FAILURE", "reading %s: %v", path, err)
	}
	if len(data) > maxImageBytes {
		return Errorf("FILE_TOO_LARGE", "Image %s is larger than %d bytes and cannot be read.", path, maxImageBytes)
	}
	msg := fmt.Sprintf("Read image file %s (%s, %d bytes).", path, mime, len(data))
	return Result{Output: msg, Media: []llm.Media{{MIMEType: mime, Data: data}}, Display: msg}
}

// imageMIME recognises the image formats models accept by their magic
// bytes, not their extension, so a misnamed file is still handled right.
func imageMIME(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// looksBinary reports whether head, the start of a file, is not text: it
// holds a NUL byte, or more than a tenth of it is invalid UTF-8 or control
// characters. The tolerance lets a Latin-1 file with a few accented
// letters through (they are shown as U+FFFD). complete says head is the
// whole file; otherwise a rune cut at its end is not held against it.
func looksBinary(head []byte, complete bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad, total := 0, 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 && !complete && !utf8.FullRune(head[i:]) {
			break
		}
		total++
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case r < 0x20 && !strings.ContainsRune("\t\n\r\f\v\b\x1b", r), r == 0x7f:
			bad++
		}
		i += size
	}
	return bad*10 > total
}

// cutRunes returns the first n runes of s and true when s is longer.
func cutRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if i >= len(s) {
			return s, false
		}
	}
	return s[:i], true
}

// lineScanner walks a stream line by line in constant memory and counts
// what it consumed, so the total line count comes for free.
type lineScanner struct {
	r        *bufio.Reader
	line     []byte // reused buffer of the current line
	newlines int    // '\n' bytes consumed
	last     byte   // last byte consumed
	consumed int64
}

func (s *lineScanner) account(b []byte, newlines int) {
	if len(b) == 0 {
		return
	}
	s.newlines += newlines
	s.last = b[len(b)-1]
	s.consumed += int64(len(b))
}

// skip consumes n lines and returns how many there were (fewer at EOF).
// It counts newlines a buffer at a time instead of reading line by line.
func (s *lineScanner) skip(ctx context.Context, n int) (int, error) {
	skipped := 0
	for skipped < n {
		if err := ctx.Err(); err != nil {
			return skipped, err
		}
		buf, err := s.r.Peek(s.r.Size())
		if len(buf) == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return skipped, nil
			}
			return skipped, err
		}
		need := n - skipped
		if c := bytes.Count(buf, []byte{'\n'}); c < need {
			s.account(buf, c)
			skipped += c
			s.r.Discard(len(buf))
			continue
		}
		i := 0
		for k := 0; k < need; k++ {
			i += bytes.IndexByte(buf[i:], '\n') + 1
		}
		s.account(buf[:i], need)
		s.r.Discard(i)
		skipped += need
	}
	return skipped, nil
}

// readLine returns the next line without its '\n', keeping at most maxBytes
// bytes of it (truncated says bytes were dropped); ok is false at EOF. The
// slice is valid until the next call.
func (s *lineScanner) readLine(maxBytes int) (line []byte, truncated, ok bool, err error) {
	s.line = s.line[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		body := frag
		end := len(frag) > 0 && frag[len(frag)-1] == '\n'
		if end {
			body = frag[:len(frag)-1]
			s.account(frag, 1)
		} else {
			s.account(frag, 0)
		}
		if len(frag) > 0 {
			ok = true
		}
		if room := maxBytes - len(s.line); len(body) > room {
			s.line = append(s.line, body[:room]...)
			truncated = true
		} else {
			s.line = append(s.line, body...)
		}
		switch {
		case end:
			return s.line, truncated, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil || errors.Is(err, io.EOF):
			return s.line, truncated, ok, nil
		default:
			return nil, false, false, err
		}
	}
}

// countRest consumes the rest of the stream, counting its lines.
func (s *lineScanner) countRest(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf, err := s.r.Peek(s.r.Size())
		if len(buf) == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		s.account(buf, bytes.Count(buf, []byte{'\n'}))
		s.r.Discard(len(buf))
	}
}

// totalLines is the number of lines consumed: a last line without a
// trailing newline counts, an empty stream has none.
func (s *lineScanner) totalLines() int {
	if s.consumed > 0 && s.last != '\n' {
		return s.newlines + 1
	}
	return s.newlines
}

// Helpers shared by the file tools.

// decodeFileArgs decodes args into v, returning an error Result when the
// arguments are not the expected object.
func decodeFileArgs(args json.RawMessage, v any) *Result { return decodeArgs(args, v) }

// resolveFilePath confines p, a path to write, to the workspace, naming
// the parameter in the error; a refusal says what to do instead.
func resolveFilePath(ws *Workspace, param, p string) (string, *Result) {
	abs, r := resolvePath(ws, param, p, ws.Resolve)
	if r != nil && r.ErrorType == "PATH_OUTSIDE_WORKSPACE" {
		r.Output += outsideWriteAdvice
	}
	return abs, r
}

// outsideWriteAdvice follows the refusal of a write outside the
// workspace: the same call cannot succeed, so the model should change it
// or hand the change to the user.
const outsideWriteAdvice = ". Files outside the workspace cannot be written or edited. Do not retry this path: " +
	"use a path inside the workspace instead, or, if the file outside it must change, ask the user to change it " +
	"or to start ply with its directory in the workspace (--include-directories)."

// resolveReadPath is resolveFilePath for a path only read: the read-only
// roots are accepted too.
func resolveReadPath(ws *Workspace, param, p string) (string, *Result) {
	return resolvePath(ws, param, p, ws.ResolveRead)
}

func resolvePath(ws *Workspace, param, p string, resolve func(string) (string, error)) (string, *Result) {
	if strings.TrimSpace(p) == "" {
		r := Errorf("INVALID_TOOL_PARAMS", "%s must not be empty", param)
		return "", &r
	}
	abs, err := resolve(p)
	if err != nil {
		kind := "INVALID_TOOL_PARAMS"
		if errors.Is(err, ErrOutsideWorkspace) {
			kind = "PATH_OUTSIDE_WORKSPACE"
		}
		r := Errorf(kind, "%v", err)
		return "", &r
	}
	return abs, nil
}

// fileErrorResult turns an error from stat or open into a Result.
func fileErrorResult(path string, err error) Result {
	switch {
	case errors.Is(err, os.ErrNotExist):
		msg := "File not found: " + path
		if near := nearMisses(path); len(near) > 0 {
			msg += ". Did you mean " + joinList(near) + "?"
		}
		return Errorf("FILE_NOT_FOUND", "%s", msg)
	case errors.Is(err, os.ErrPermission):
		return Errorf("PERMISSION_DENIED", "Permission denied: %s", path)
	}
	return Errorf("READ_CONTENT_FAILURE", "Cannot access %s: %v", path, err)
}

// displayPath is path relative to the workspace root when inside it, for
// short human summaries.
func displayPath(ws *Workspace, path string) string {
	if rel, err := filepath.Rel(ws.Root(), path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}

// inGitDir reports whether path, lexically or after following symlinks,
// lies in a .git directory (or is a .git file) of a workspace root.
// Writing there can corrupt the repository or plant hooks that run later.
func inGitDir(ws *Workspace, path string) bool {
	paths := []string{path}
	if real, err := realPath(path); err == nil {
		paths = append(paths, real)
	}
	for _, p := range paths {
		for _, root := range ws.Roots() {
			if !within(root, p) {
				continue
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				continue
			}
			for _, part := range strings.Split(rel, string(filepath.Separator)) {
				if strings.EqualFold(part, ".git") {
					return true
				}
			}
		}
	}
	return false
}

// textLineCount counts lines the way read_file does: a final line without
// a newline counts, "" has none.
func textLineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
