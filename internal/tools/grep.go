package tools

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	// grepMaxOutputChars caps one answer; the model narrows the search
	// rather than reading pages of matches.
	grepMaxOutputChars = 20000
	// grepMaxKept bounds the matches held in memory for the answer: no
	// more than this many "L1: x" lines fit in grepMaxOutputChars.
	grepMaxKept = 5000
	// grepMaxLineChars cuts one displayed line (minified code).
	grepMaxLineChars = 1000
	// grepBufSize is the initial per-worker read buffer (pooled, see
	// bufpool.go); it grows to grepMaxLine for files with long lines.
	grepBufSize = streamBufSize
	// grepMaxLine is the longest line searched; longer ones are skipped,
	// so that a huge one-line file cannot make a worker hold it whole.
	grepMaxLine = 1 << 20
	// grepSniffLen is how much of a file is checked for a NUL byte, the
	// sign of a binary file.
	grepSniffLen = 8 << 10
)

// Grep is the grep_search tool: a regular-expression search over file
// contents, implemented in Go (RE2 syntax).
type Grep struct{ ws *Workspace }

// NewGrep returns the grep_search tool over ws.
func NewGrep(ws *Workspace) *Grep { return &Grep{ws: ws} }

func (*Grep) Name() string { return "grep_search" }
func (*Grep) Kind() Kind   { return KindSearch }

func (*Grep) Description() string {
	return `Searches file contents for a regular expression and returns the matching lines grouped by file, with line numbers.
- ALWAYS use this tool for content search instead of running grep or rg through the shell.
- Regular expressions use RE2 syntax (e.g. "log.*Error", "func\\s+\\w+"); escape special characters ("interface\\{\\}" finds "interface{}").
- Matching is case-sensitive, as in grep and rg; set case_insensitive (or start the pattern with (?i)) to ignore case.
- Lines are shown as they are in the file, indentation included, so a line can be copied into edit's old_string.
- context, before and after show lines around each match ("L12:" is a match, "L11-" a context line, "--" a gap).
- output_mode "files_with_matches" lists only the files, "count" the number of matching lines per file.
- Matches one line at a time. Files excluded by .gitignore, the .git directory and binary files are skipped.
- Filter files with the glob parameter (e.g. "*.js", "*.{ts,tsx}", "src/**/*.go").`
}

var grepSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "The regular expression (RE2 syntax) to search for in file contents."
    },
    "path": {
      "type": "string",
      "description": "File or directory to search in, absolute or relative to the workspace root. Defaults to the workspace root."
    },
    "glob": {
      "type": "string",
      "description": "Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\"). Without a slash it matches file names at any depth; with one, paths relative to the searched directory. A leading \"!\" excludes instead."
    },
    "limit": {
      "type": ["integer", "string"],
      "minimum": 1,
      "description": "Show at most this many matching lines. Optional: all matches are shown if not specified, up to the output size cap."
    },
    "case_insensitive": {
      "type": "boolean",
      "description": "Ignore case. Default false: the search is case-sensitive."
    },
    "context": {
      "type": ["integer", "string"],
      "minimum": 0,
      "description": "Lines to show before and after each match (like grep -C)."
    },
    "before": {
      "type": ["integer", "string"],
      "minimum": 0,
      "description": "Lines to show before each match (like grep -B); overrides context for that side."
    },
    "after": {
      "type": ["integer", "string"],
      "minimum": 0,
      "description": "Lines to show after each match (like grep -A); overrides context for that side."
    },
    "output_mode": {
      "type": "string",
      "enum": ["content", "files_with_matches", "count"],
      "description": "content (default): matching lines; files_with_matches: only the paths of files that match; count: matching lines per file."
    }
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

func (*Grep) Schema() json.RawMessage { return grepSchema }

type grepParams struct {
	Pattern         string   `json:"pattern"`
	Path            *string  `json:"path"`
	Glob            *string  `json:"glob"`
	Limit           *float64 `json:"limit"`
	CaseInsensitive bool     `json:"case_insensitive"`
	Context         *float64 `json:"context"`
	Before          *float64 `json:"before"`
	After           *float64 `json:"after"`
	OutputMode      string   `json:"output_mode"`
}

func (t *Grep) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	var p grepParams
	if r := searchDecodeArgs(args, &p); r != nil {
		return *r, nil
	}
	if p.Pattern == "" {
		return Errorf("INVALID_TOOL_PARAMS", "pattern must not be empty"), nil
	}
	limit := grepMaxKept
	if p.Limit != nil {
		if *p.Limit < 1 || *p.Limit != math.Trunc(*p.Limit) {
			return Errorf("INVALID_TOOL_PARAMS", "limit must be a positive integer, got %v", *p.Limit), nil
		}
		limit = int(min(*p.Limit, grepMaxKept))
	}
	view, r := newGrepView(p)
	if r != nil {
		return *r, nil
	}
	m, err := newGrepMatcher(p.Pattern, p.CaseInsensitive)
	if err != nil {
		// grep_search has no fixed-string mode: the escaped pattern is
		// the way to search for the text as written.
		return Errorf("INVALID_TOOL_PARAMS", "Invalid regular expression pattern %q: %v. The pattern is an RE2 regular expression; "+
			"to search for the text literally, escape the special characters with a backslash: pattern %q.",
			p.Pattern, err, regexp.QuoteMeta(p.Pattern)), nil
	}
	var filter *grepFilter
	if p.Glob != nil && strings.TrimSpace(*p.Glob) != "" {
		if filter, err = newGrepFilter(*p.Glob); err != nil {
			return Errorf("INVALID_TOOL_PARAMS", "%v", err), nil
		}
	}
	target, fi, r := searchResolve(t.ws, p.Path, false, true)
	if r != nil {
		return *r, nil
	}

	s := newGrepSearch(m, limit)
	s.view = view
	var stats walkStats
	if !fi.IsDir() {
		// A file named explicitly is searched whatever the ignore rules
		// and the glob say.
		w := &grepWorker{}
		s.searchFile(ctx, w, target, filepath.Base(target))
		putScanBuf(w.buf)
		s.longLines = w.longLines
		if w.binary {
			return Result{Output: fmt.Sprintf("%s appears to be a binary file; grep_search does not search binary files.", target), Display: "Binary file"}, nil
		}
	} else {
		workers := make([]grepWorker, runtime.GOMAXPROCS(0))
		opts := walkOptions{Root: target, IgnoreRoot: walkIgnoreRoot(t.ws, target), Workers: len(workers)}
		stats, err = walkTree(ctx, opts, func(worker int, f walkFile) bool {
			if filter == nil || filter.match(f.Rel) {
				s.searchFile(ctx, &workers[worker], f.Path, f.Rel)
			}
			return true
		})
		for i := range workers {
			s.longLines += workers[i].longLines
			putScanBuf(workers[i].buf)
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err != nil {
		return Errorf("GREP_EXECUTION_ERROR", "search of %s failed: %v", target, err), nil
	}
	if view.mode == grepModeContent && view.before+view.after > 0 {
		s.addContext(ctx, target, fi.IsDir())
	}
	return s.result(p.Pattern, target, p.Glob, stats), nil
}

// grepSearch is one running search; its methods are safe for concurrent
// use by the walk's workers.
type grepSearch struct {
	m         *grepMatcher
	view      grepView
	agg       grepAgg
	counts    grepCounts // files_with_matches and count modes
	longLines int        // set after the walk
	failMu    sync.Mutex
	failed    int // files that could not be read
}

func newGrepSearch(m *grepMatcher, limit int) *grepSearch {
	return &grepSearch{m: m, view: grepView{mode: grepModeContent}, agg: grepAgg{keep: limit, budget: grepMaxOutputChars}}
}

// grepWorker is per-goroutine scratch, reused across files so that
// searching allocates nothing per line.
type grepWorker struct {
	buf       []byte
	lower     []byte
	lines     []grepLine
	keep      int // lines of the current file worth keeping
	cost      int // their grepLineCost
	count     int
	longLines int
	binary    bool
}

type grepLine struct {
	n    int
	text string
	// context marks a line shown around a match, not a match.
	context bool
}

// searchFile searches one file, streaming it through the worker's buffer.
func (s *grepSearch) searchFile(ctx context.Context, w *grepWorker, path, rel string) {
	w.lines, w.count, w.binary = w.lines[:0], 0, false
	w.cost = len("File: \n---\n") + len(rel)
	w.keep = s.agg.room(rel)
	if s.view.mode != grepModeContent {
		w.keep = 0 // only counted
	}
	if err := s.scanFile(ctx, w, path); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.failMu.Lock()
			s.failed++
			s.failMu.Unlock()
		}
		return
	}
	switch {
	case w.count > 0 && s.view.mode != grepModeContent:
		s.counts.add(rel, w.count)
	case w.count > 0:
		s.agg.add(rel, slices.Clone(w.lines), w.cost, w.count)
	}
}

func (s *grepSearch) scanFile(ctx context.Context, w *grepWorker, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if w.buf == nil {
		w.buf = getScanBuf()
	}
	buf := w.buf
	end, err := io.ReadAtLeast(f, buf, grepSniffLen)
	eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if err != nil && !eof {
		return err
	}
	if bytes.IndexByte(buf[:min(end, grepSniffLen)], 0) >= 0 {
		w.binary = true
		return nil
	}
	start, lineNo, skipping := 0, 1, false
	for {
		if skipping {
			// Drop the rest of an over-long line.
			if i := bytes.IndexByte(buf[start:end], '\n'); i >= 0 {
				start += i + 1
				lineNo++
				skipping = false
			} else {
				start = end
			}
		}
		if !skipping {
			chunk := buf[start:end]
			cut := len(chunk)
			if !eof {
				cut = bytes.LastIndexByte(chunk, '\n') + 1
			}
			lineNo = s.scan(w, chunk[:cut], lineNo)
			start += cut
		}
		if eof {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		end = copy(buf, buf[start:end])
		start = 0
		if end == len(buf) {
			// A line fills the buffer: grow up to the line limit, then
			// give the line up.
			if len(buf) < grepMaxLine {
				grown := make([]byte, min(2*len(buf), grepMaxLine))
				copy(grown, buf[:end])
				buf, w.buf = grown, grown
			} else {
				skipping = true
				w.longLines++
				end = 0
			}
		}
		n, err := f.Read(buf[end:])
		end += n
		if errors.Is(err, io.EOF) {
			eof = true
		} else if err != nil {
			return err
		}
	}
}

// scan reports the matching lines of region, which holds whole lines (the
// last may lack its newline at the end of the file) starting at line
// lineNo; it returns the number of the line after region.
func (s *grepSearch) scan(w *grepWorker, region []byte, lineNo int) int {
	m := s.m
	if m.needle == nil {
		for pos := 0; pos < len(region); lineNo++ {
			le := bytes.IndexByte(region[pos:], '\n')
			if le < 0 {
				le = len(region)
			} else {
				le += pos
			}
			if line := bytes.TrimSuffix(region[pos:le], []byte{'\r'}); m.re.Match(line) {
				w.add(lineNo, line)
			}
			pos = le + 1
		}
		return lineNo
	}
	f := newGrepFinder(m, w, region)
	counted := 0 // newlines in region[:counted] are in lineNo
	for pos := 0; pos < len(region); {
		i := f.index(w, pos)
		if i < 0 {
			break
		}
		ls := pos + bytes.LastIndexByte(region[pos:i], '\n') + 1
		le := bytes.IndexByte(region[i:], '\n')
		if le < 0 {
			le = len(region)
		} else {
			le += i
		}
		if line := bytes.TrimSuffix(region[ls:le], []byte{'\r'}); m.exact || m.re.Match(line) {
			lineNo += bytes.Count(region[counted:ls], []byte{'\n'})
			counted = ls
			w.add(lineNo, line)
		}
		pos = le + 1
	}
	return lineNo + bytes.Count(region[counted:], []byte{'\n'})
}

// add records a match; only as many lines as the answer can show are
// kept, the rest are counted.
func (w *grepWorker) add(n int, line []byte) {
	w.count++
	if len(w.lines) < w.keep && w.cost < grepMaxOutputChars {
		text := grepLineText(line)
		w.lines = append(w.lines, grepLine{n: n, text: text})
		w.cost += grepLineCost(n, text)
	}
}

// grepLineText is the displayed form of a line: its indentation kept (a
// line copied into edit's old_string must match the file) and trailing
// white space dropped, cut to grepMaxLineChars on a rune boundary, valid
// UTF-8.
func grepLineText(line []byte) string {
	line = bytes.TrimRight(line, " \t\r\f\v")
	cut := false
	if len(line) > grepMaxLineChars {
		n := grepMaxLineChars
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		line, cut = line[:n], true
	}
	s := strings.ToValidUTF8(string(line), "\uFFFD")
	if cut {
		s += " [...]"
	}
	return s
}

// grepAgg collects per-file results from all workers. The answer lists
// files in path order, so only the files with the smallest paths that
// together fill the answer (keep lines or budget characters) are retained:
// a max-heap by path lets the others go as soon as they cannot be shown,
// and a file that cannot be shown is not even rendered, while the total
// still counts every match.
type grepAgg struct {
	mu     sync.Mutex
	keep   int // the limit on lines
	budget int // the limit on characters
	total  int // every match found
	count  int // lines held
	cost   int // their grepLineCost
	files  grepFileHeap
}

type grepFileHits struct {
	rel   string
	lines []grepLine
	cost  int
}

// grepLineCost is what line n with text takes in the answer; with the
// file header counted too, held costs are exact, so that the files held
// always fill the answer's budget.
func grepLineCost(n int, text string) int {
	digits := 1
	for ; n >= 10; n /= 10 {
		digits++
	}
	return len("L: \n") + digits + len(text)
}

func (a *grepAgg) full(count, cost int) bool {
	return len(a.files) > 0 && (count >= a.keep || cost >= a.budget)
}

// room returns how many lines of the file rel could still be shown.
func (a *grepAgg) room(rel string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.full(a.count, a.cost) && rel > a.files[0].rel {
		return 0
	}
	return a.keep
}

func (a *grepAgg) add(rel string, lines []grepLine, cost, count int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total += count
	if len(lines) == 0 || (a.full(a.count, a.cost) && rel > a.files[0].rel) {
		return
	}
	heap.Push(&a.files, grepFileHits{rel: rel, lines: lines, cost: cost})
	a.count += len(lines)
	a.cost += cost
	for len(a.files) > 1 {
		top := &a.files[0]
		if !a.full(a.count-len(top.lines), a.cost-top.cost) {
			break
		}
		a.count -= len(top.lines)
		a.cost -= top.cost
		heap.Pop(&a.files)
	}
}

type grepFileHeap []grepFileHits

func (h grepFileHeap) Len() int           { return len(h) }
func (h grepFileHeap) Less(i, j int) bool { return h[i].rel > h[j].rel }
func (h grepFileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *grepFileHeap) Push(x any)        { *h = append(*h, x.(grepFileHits)) }
func (h *grepFileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// grepFilter is the glob parameter, with ripgrep's reading: a pattern
// without a slash matches the file name at any depth, one with a slash
// the path relative to the searched directory, and "!" negates.
type grepFilter struct {
	pattern  string
	negate   bool
	baseOnly bool
}

func newGrepFilter(glob string) (*grepFilter, error) {
	f := &grepFilter{pattern: filepath.ToSlash(strings.TrimSpace(glob))}
	if rest, ok := strings.CutPrefix(f.pattern, "!"); ok {
		f.pattern, f.negate = rest, true
	}
	f.pattern = strings.TrimPrefix(f.pattern, "./")
	f.baseOnly = !strings.Contains(f.pattern, "/")
	if f.pattern == "" || !doublestar.ValidatePattern(f.pattern) {
		return nil, fmt.Errorf("invalid glob pattern %q", glob)
	}
	return f, nil
}

func (f *grepFilter) match(rel string) bool {
	name := rel
	if f.baseOnly {
		name = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	return doublestar.MatchUnvalidated(f.pattern, name) != f.negate
}
