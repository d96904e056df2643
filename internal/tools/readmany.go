package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

const (
	// readManyPerFile caps the text of one file, so that one large file
	// cannot take the whole answer from the others.
	readManyPerFile = 64 << 10
	// readManyTotal caps the text of one answer: about 64k tokens, a
	// large but bounded share of a context window.
	readManyTotal = 256 << 10
	// readManyMaxCandidates stops expanding patterns; a pattern matching
	// more files than this is too broad to be read anyway.
	readManyMaxCandidates = 20_000
	// readManyListed is how many names each skip reason lists.
	readManyListed = 20
)

// ReadManyFiles is the read_many_files tool: the text of every file that a
// list of paths, directories and glob patterns names, in one answer.
type ReadManyFiles struct {
	ws *Workspace
	// Caps, variables so tests can make them small.
	perFile, total int
}

// NewReadManyFiles returns read_many_files confined to ws.
func NewReadManyFiles(ws *Workspace) *ReadManyFiles {
	return &ReadManyFiles{ws: ws, perFile: readManyPerFile, total: readManyTotal}
}

func (*ReadManyFiles) Name() string { return "read_many_files" }
func (*ReadManyFiles) Kind() Kind   { return KindRead }

func (t *ReadManyFiles) Description() string {
	return fmt.Sprintf(`Reads the content of several files at once: files, directories (all files below them) and glob patterns.
- paths are relative to the workspace root (or absolute inside it), e.g. ["README.md", "internal/config", "src/**/*.ts"].
- Files excluded by .gitignore are skipped, and so, unless useDefaultExcludes is false, are dependency and build directories (node_modules, vendor, dist, build, target, ...), lock files, minified files and .env files. A file named explicitly is always read.
- Each file comes after a line "--- <absolute path> ---", in sorted order, its lines numbered as read_file numbers them. Binary files are skipped; PNG, JPEG, GIF and WebP images named explicitly are returned as images.
- At most %d KiB of text per file and %d KiB in all; longer files are cut (read the rest with read_file), and files past the total are listed as skipped.
- Use it to read a set of related files, such as a package or all configs; use read_file for one file and grep_search to find where something is.`,
		t.perFile>>10, t.total>>10)
}

var readManySchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "paths": {
      "type": "array",
      "items": {"type": "string", "minLength": 1},
      "minItems": 1,
      "description": "Files, directories or glob patterns, relative to the workspace root or absolute inside it, e.g. [\"src/main.go\", \"docs\", \"**/*.md\"]."
    },
    "include": {
      "type": "array",
      "items": {"type": "string", "minLength": 1},
      "description": "More glob patterns to read, merged with paths, e.g. [\"**/*_test.go\"]."
    },
    "exclude": {
      "type": "array",
      "items": {"type": "string", "minLength": 1},
      "description": "Glob patterns of files to leave out, matched against the path relative to the workspace root; a pattern without \"/\" also matches any single path component, e.g. [\"*.gen.go\", \"testdata\"]."
    },
    "useDefaultExcludes": {
      "type": "boolean",
      "description": "Leave out dependency and build directories, lock files, minified files and .env files (default true)."
    }
  },
  "required": ["paths"],
  "additionalProperties": false
}`)

func (*ReadManyFiles) Schema() json.RawMessage { return readManySchema }

type readManyParams struct {
	Paths              []string `json:"paths"`
	Include            []string `json:"include"`
	Exclude            []string `json:"exclude"`
	UseDefaultExcludes *bool    `json:"useDefaultExcludes"`
}

// Skip reasons, in the order the summary lists them.
const (
	skipNotFound    = "not found"
	skipExcluded    = "excluded by the exclude patterns"
	skipDefault     = "default excludes (dependencies, build output, lock files, .env)"
	skipBinary      = "binary"
	skipImage       = "images not named explicitly"
	skipSpecial     = "not a regular file"
	skipUnreadable  = "unreadable"
	skipTotal       = "total limit reached"
	skipCandidates  = "too many matches"
	skipImageBudget = "image size limit reached"
)

var skipOrder = []string{skipNotFound, skipExcluded, skipDefault, skipBinary, skipImage, skipSpecial,
	skipUnreadable, skipTotal, skipImageBudget, skipCandidates}

// readManyRun is the state of one call.
type readManyRun struct {
	t        *ReadManyFiles
	body     strings.Builder
	used     int  // bytes of file text in body
	full     bool // the total limit was reached
	read     int
	cut      int // files truncated
	media    []llm.Media
	mediaLen int
	skipped  map[string][]string // reason -> paths
	notes    []string
}

func (r *readManyRun) skip(reason, path string) {
	r.skipped[reason] = append(r.skipped[reason], path)
}

func (t *ReadManyFiles) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p readManyParams
	if r := decodeFileArgs(args, &p); r != nil {
		return *r, nil
	}
	if len(p.Paths) == 0 {
		return Errorf("INVALID_TOOL_PARAMS", "paths must name at least one file, directory or glob pattern"), nil
	}
	ex, r := newReadManyFilter(p.Exclude, p.UseDefaultExcludes == nil || *p.UseDefaultExcludes)
	if r != nil {
		return *r, nil
	}
	run := &readManyRun{t: t, skipped: map[string][]string{}}
	cands, r, err := t.expand(ctx, slices.Concat(p.Paths, p.Include), ex, run)
	if err != nil {
		return Result{}, err
	}
	if r != nil {
		return *r, nil
	}
	for i, c := range cands {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		// A sliver of budget would show a few bytes of the next file:
		// list it as skipped instead.
		if run.full || t.total-run.used < min(4<<10, t.total/16) {
			run.skip(skipTotal, c.path)
			continue
		}
		if err := run.readOne(ctx, c); err != nil {
			return Result{}, err
		}
	}
	return run.result(), nil
}

// readOne appends one file to the answer, or records why it was skipped.
func (r *readManyRun) readOne(ctx context.Context, c readManyCand) error {
	fi, err := os.Stat(c.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			r.skip(skipNotFound, c.path) // removed since it was listed
		} else {
			r.skip(skipUnreadable, fmt.Sprintf("%s (%v)", c.path, err))
		}
		return nil
	}
	if !fi.Mode().IsRegular() {
		r.skip(skipSpecial, c.path)
		return nil
	}
	f, err := os.Open(c.path)
	if err != nil {
		r.skip(skipUnreadable, fmt.Sprintf("%s (%v)", c.path, err))
		return nil
	}
	defer f.Close()
	br := getLineReader(f)
	defer putLineReader(br) // everything read from it is copied out
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		r.skip(skipUnreadable, fmt.Sprintf("%s (%v)", c.path, err))
		return nil
	}
	if mime := imageMIME(head); mime != "" {
		if !c.explicit {
			r.skip(skipImage, c.path)
			return nil
		}
		if r.mediaLen+int(fi.Size()) > maxImageBytes {
			r.skip(skipImageBudget, c.path)
			return nil
		}
		res := readImage(br, c.path, fi.Size(), mime)
		if res.IsError {
			r.skip(skipUnreadable, fmt.Sprintf("%s (%s)", c.path, res.Output))
			return nil
		}
		r.media = append(r.media, res.Media...)
		r.mediaLen += len(res.Media[0].Data)
		r.read++
		fmt.Fprintf(&r.body, "--- %s ---\n[image %s, %d bytes, attached]\n\n", c.path, mime, len(res.Media[0].Data))
		return nil
	}
	if looksBinary(head, len(head) < sniffLen) {
		r.skip(skipBinary, c.path)
		return nil
	}
	// A text file an editor holds is read as the editor has it.
	if text, ok, err := r.t.ws.editorText(ctx, c.path, fi.Size()); err != nil {
		r.skip(skipUnreadable, fmt.Sprintf("%s (%v)", c.path, err))
		return nil
	} else if ok {
		br = bufio.NewReader(strings.NewReader(text))
	}
	budget := min(r.t.perFile, r.t.total-r.used)
	text, lines, more, err := readTextPrefix(ctx, br, budget)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.skip(skipUnreadable, fmt.Sprintf("%s (%v)", c.path, err))
		return nil
	}
	fmt.Fprintf(&r.body, "--- %s ---\n", c.path)
	switch {
	case text == "" && !more:
		r.body.WriteString("[empty file]\n")
	default:
		writeNumberedText(&r.body, text)
	}
	if more {
		why := "the per-file limit of " + sizeLimit(r.t.perFile)
		if budget < r.t.perFile {
			why = "the total limit of " + sizeLimit(r.t.total)
			r.full = true // nothing more fits; the rest is skipped
		}
		shown := fmt.Sprintf("lines 1-%d", lines)
		if lines == 0 {
			shown = "the start of line 1"
		}
		fmt.Fprintf(&r.body, "[truncated at %s: showed %s of a %s file; call read_file with offset %d for the rest]\n",
			why, shown, humanSize(fi.Size()), lines)
		r.cut++
	}
	r.body.WriteByte('\n')
	r.used += len(text)
	r.read++
	return nil
}

// readTextPrefix reads whole lines of br while they fit in budget bytes,
// cutting overlong lines as read_file does, and reports whether the file
// goes on. It stops reading there: a huge file costs one buffer.
func readTextPrefix(ctx context.Context, br *bufio.Reader, budget int) (text string, lines int, more bool, err error) {
	sc := &lineScanner{r: br}
	var sb strings.Builder
	for {
		if lines%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return "", 0, false, err
			}
		}
		raw, truncated, ok, err := sc.readLine(readMaxLineChars * utf8.UTFMax)
		if err != nil {
			return "", 0, false, err
		}
		if !ok {
			return sb.String(), lines, false, nil
		}
		line := strings.ToValidUTF8(string(raw), "\uFFFD")
		if lines == 0 {
			line = strings.TrimPrefix(line, utf8BOM)
		}
		if cut, ok := cutRunes(line, readMaxLineChars); ok {
			line, truncated = cut, true
		}
		if truncated {
			line += " ... [line truncated]"
		}
		if sb.Len()+len(line)+1 > budget {
			if lines == 0 {
				// Show the start of a first line too long for the
				// budget rather than nothing.
				sb.WriteString(cutBytes(line, budget))
			}
			return sb.String(), lines, true, nil
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
		lines++
	}
}

// writeNumberedText writes text with each line numbered as read_file
// numbers it, and ends it with a newline.
func writeNumberedText(sb *strings.Builder, text string) {
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		sb.WriteString(numberPrefix(i + 1))
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
}

// cutBytes returns the longest prefix of s of at most n bytes that ends
// on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// sizeLimit names a cap for the model: "64 KiB", or bytes when small.
func sizeLimit(n int) string {
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// result assembles the answer: a count, the files, then what was skipped.
func (r *readManyRun) result() Result {
	nSkipped := 0
	for _, v := range r.skipped {
		nSkipped += len(v)
	}
	if r.read == 0 {
		kind := "NO_FILES_READ"
		if len(r.skipped) == 1 && len(r.skipped[skipNotFound]) > 0 {
			kind = "FILE_NOT_FOUND"
		}
		return Errorf(kind, "No file was read.%s", r.skippedText())
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Read %d file(s), %s of text", r.read, humanSize(int64(r.used)))
	if r.cut > 0 {
		fmt.Fprintf(&sb, "; %d were truncated", r.cut)
	}
	if nSkipped > 0 {
		fmt.Fprintf(&sb, "; %d skipped (listed at the end)", nSkipped)
	}
	sb.WriteString(". Files ignored by .gitignore are not listed.\n\n")
	sb.WriteString(r.body.String())
	sb.WriteString("--- End of content ---")
	sb.WriteString(r.skippedText())
	display := fmt.Sprintf("Read %d file(s)", r.read)
	if nSkipped > 0 {
		display += fmt.Sprintf(", skipped %d", nSkipped)
	}
	return Result{Output: sb.String(), Media: r.media, Display: display}
}

func (r *readManyRun) skippedText() string {
	var sb strings.Builder
	for _, n := range r.notes {
		sb.WriteString("\n" + n)
	}
	for _, reason := range skipOrder {
		paths := slices.Clone(r.skipped[reason])
		if len(paths) == 0 {
			continue
		}
		slices.Sort(paths) // found by concurrent walkers in any order
		fmt.Fprintf(&sb, "\nSkipped (%s): %d", reason, len(paths))
		for _, p := range paths[:min(len(paths), readManyListed)] {
			sb.WriteString("\n- " + p)
		}
		if len(paths) > readManyListed {
			fmt.Fprintf(&sb, "\n- ... and %d more", len(paths)-readManyListed)
		}
	}
	return sb.String()
}
