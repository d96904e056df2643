package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// globMaxResults caps the paths one glob answer lists; past that the model
// learns how many were left out and narrows the pattern.
const globMaxResults = 1000

// Glob is the glob tool: files whose path matches a pattern, newest first.
type Glob struct{ ws *Workspace }

// NewGlob returns the glob tool over ws.
func NewGlob(ws *Workspace) *Glob { return &Glob{ws: ws} }

func (*Glob) Name() string { return "glob" }
func (*Glob) Kind() Kind   { return KindSearch }

func (*Glob) Description() string {
	return `Fast file pattern matching tool that works with any codebase size.
- Supports glob patterns like "**/*.js" or "src/**/*.ts" ("*" stays within one directory, "**" spans any number, "{a,b}" alternatives, "[abc]" classes).
- Matching is case-insensitive; files excluded by .gitignore and the .git directory are skipped.
- Returns absolute paths of matching files sorted by modification time (newest first), at most 1000.
- Use this tool when you need to find files by name patterns.`
}

var globSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "The glob pattern to match files against, relative to path (e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\", \"*.md\")."
    },
    "path": {
      "type": "string",
      "description": "The directory to search in, absolute or relative to the workspace root. Omit it to search the workspace root; do not pass \"undefined\" or \"null\"."
    }
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

func (*Glob) Schema() json.RawMessage { return globSchema }

type globParams struct {
	Pattern string  `json:"pattern"`
	Path    *string `json:"path"`
}

type globHit struct {
	path  string
	mtime time.Time
}

func (t *Glob) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	var p globParams
	if r := searchDecodeArgs(args, &p); r != nil {
		return *r, nil
	}
	if strings.TrimSpace(p.Pattern) == "" {
		return Errorf("INVALID_TOOL_PARAMS", "pattern must not be empty"), nil
	}
	dir, _, r := searchResolve(t.ws, p.Path, true, true)
	if r != nil {
		return *r, nil
	}

	// Walk only the static part of the pattern ("src/pkg" of
	// "src/pkg/**/*.go"): an absolute pattern or one climbing out with
	// ".." is then confined like any other path.
	full := filepath.ToSlash(p.Pattern)
	if !filepath.IsAbs(full) {
		full = walkDirPrefix(dir) + full
	}
	base, rest := doublestar.SplitPattern(full)
	if !doublestar.ValidatePattern(rest) {
		return Errorf("INVALID_TOOL_PARAMS", "invalid glob pattern %q", p.Pattern), nil
	}
	base = filepath.Clean(base)
	base, err := t.ws.ResolveRead(base)
	if err != nil {
		if errors.Is(err, ErrOutsideWorkspace) {
			return Errorf("PATH_OUTSIDE_WORKSPACE", "pattern %q reaches outside the workspace: %v", p.Pattern, err), nil
		}
		return Errorf("INVALID_TOOL_PARAMS", "pattern %q: %v", p.Pattern, err), nil
	}
	noMatch := Result{
		Output:  fmt.Sprintf("No files found matching pattern %q in %s", p.Pattern, dir),
		Display: "No files found",
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return noMatch, nil
	}

	rest = strings.ToLower(rest)
	opts := walkOptions{Root: base, IgnoreRoot: walkIgnoreRoot(t.ws, base)}
	if !strings.Contains(rest, "**") && !strings.Contains(rest, "{") {
		// Without "**" or alternatives the pattern has a fixed depth:
		// nothing deeper can match, so do not read it.
		opts.MaxDepth = strings.Count(rest, "/") + 1
	}
	opts.Workers = runtime.GOMAXPROCS(0)
	perWorker := make([][]globHit, opts.Workers)
	stats, err := walkTree(ctx, opts, func(worker int, f walkFile) bool {
		if !doublestar.MatchUnvalidated(rest, strings.ToLower(f.Rel)) {
			return true
		}
		var mtime time.Time
		if fi, err := f.Entry.Info(); err == nil {
			mtime = fi.ModTime()
		}
		perWorker[worker] = append(perWorker[worker], globHit{path: f.Path, mtime: mtime})
		return true
	})
	if err != nil {
		return Result{}, err
	}
	hits := slices.Concat(perWorker...)
	if len(hits) == 0 {
		if stats.Unreadable > 0 {
			noMatch.Output += searchUnreadableNote(stats)
		}
		return noMatch, nil
	}
	slices.SortFunc(hits, func(a, b globHit) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})

	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d file(s) matching %q in %s, sorted by modification time (newest first):\n", len(hits), p.Pattern, dir)
	shown := hits[:min(len(hits), globMaxResults)]
	for _, h := range shown {
		sb.WriteString(h.path)
		sb.WriteByte('\n')
	}
	if left := len(hits) - len(shown); left > 0 {
		fmt.Fprintf(&sb, "[%d more file(s) not shown; only the %d most recently modified are listed. Use a narrower pattern or path to see the rest.]\n", left, globMaxResults)
	}
	if stats.Unreadable > 0 {
		sb.WriteString(searchUnreadableNote(stats))
	}
	return Result{
		Output:  strings.TrimSuffix(sb.String(), "\n"),
		Display: fmt.Sprintf("Found %d file(s)", len(hits)),
	}, nil
}

// searchDecodeArgs decodes the arguments of glob and grep_search, turning
// anything that is not the expected object into an error Result.
func searchDecodeArgs(args json.RawMessage, v any) *Result { return decodeArgs(args, v) }

// searchResolve resolves the optional path parameter of a search tool
// (default: the workspace root) and checks that it exists, and that it is a
// directory when dirOnly. With read, the read-only roots are accepted.
func searchResolve(ws *Workspace, param *string, dirOnly, read bool) (string, os.FileInfo, *Result) {
	fail := func(r Result) (string, os.FileInfo, *Result) { return "", nil, &r }
	p := ""
	if param != nil {
		p = strings.TrimSpace(*param)
	}
	// Models trained on JavaScript tools sometimes spell "omitted" out.
	if p == "" || p == "undefined" || p == "null" {
		p = ws.Root()
	}
	resolve := ws.Resolve
	if read {
		resolve = ws.ResolveRead
	}
	abs, err := resolve(p)
	if err != nil {
		if errors.Is(err, ErrOutsideWorkspace) {
			return fail(Errorf("PATH_OUTSIDE_WORKSPACE", "%v", err))
		}
		return fail(Errorf("INVALID_TOOL_PARAMS", "path %q: %v", p, err))
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fail(Errorf("FILE_NOT_FOUND", "Path does not exist: %s", abs))
	case errors.Is(err, os.ErrPermission):
		return fail(Errorf("PERMISSION_DENIED", "Permission denied: %s", abs))
	case err != nil:
		return fail(Errorf("INVALID_TOOL_PARAMS", "Cannot access %s: %v", abs, err))
	case dirOnly && !fi.IsDir():
		return fail(Errorf("PATH_IS_NOT_A_DIRECTORY", "Path is not a directory: %s", abs))
	}
	return abs, fi, nil
}

func searchUnreadableNote(s walkStats) string {
	return fmt.Sprintf("\n[%d director(ies) could not be read and were skipped, e.g.: %v]", s.Unreadable, s.FirstErr)
}
