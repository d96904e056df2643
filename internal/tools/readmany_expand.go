package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
)

// readManyCand is one file read_many_files may read.
type readManyCand struct {
	path     string // absolute
	explicit bool   // named as a file, not found by a directory or pattern
}

// readManyDefaultDirs are directories of dependencies, build output and
// caches: their files are rarely what the model meant by "read the
// project", and there are thousands of them.
var readManyDefaultDirs = map[string]bool{
	"node_modules": true, "bower_components": true, "vendor": true, ".git": true, ".hg": true, ".svn": true,
	"dist": true, "build": true, "out": true, "target": true, "coverage": true, ".next": true, ".nuxt": true,
	"__pycache__": true, ".venv": true, "venv": true, ".tox": true, ".mypy_cache": true, ".pytest_cache": true,
	".gradle": true, ".cache": true, ".idea": true, ".vscode": true, ".terraform": true,
}

// readManyDefaultFiles are file names left out by default: lock files
// (long, generated), minified code and source maps (one huge line), and
// .env files, which hold secrets.
var readManyDefaultFiles = []string{
	"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum", "Cargo.lock", "poetry.lock", "Pipfile.lock",
	"Gemfile.lock", "composer.lock", "*.min.js", "*.min.css", "*.map", ".DS_Store", ".env", ".env.*",
}

// readManyFilter holds the exclude patterns of one call.
type readManyFilter struct {
	exclude  []string // lower case
	defaults bool
}

func newReadManyFilter(exclude []string, defaults bool) (readManyFilter, *Result) {
	f := readManyFilter{defaults: defaults}
	for _, p := range exclude {
		p = strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(p)), "./")
		if p == "" || !doublestar.ValidatePattern(p) {
			r := Errorf("INVALID_TOOL_PARAMS", "invalid exclude pattern %q", p)
			return f, &r
		}
		f.exclude = append(f.exclude, strings.ToLower(strings.TrimSuffix(p, "/")))
	}
	return f, nil
}

// excluded matches the exclude patterns against wsRel, the path relative
// to the workspace root. A pattern without "/" matches any one component,
// so "testdata" and "*.pb.go" work at every depth.
func (f readManyFilter) excluded(wsRel string) bool {
	rel := strings.ToLower(wsRel)
	parts := strings.Split(rel, "/")
	for _, p := range f.exclude {
		if doublestar.MatchUnvalidated(p, rel) || doublestar.MatchUnvalidated(p+"/**", rel) {
			return true
		}
		if !strings.Contains(p, "/") {
			for _, c := range parts {
				if doublestar.MatchUnvalidated(p, c) {
					return true
				}
			}
		}
	}
	return false
}

// defaultExcluded applies the default excludes to walkRel, the path below
// the directory that was walked: a directory the model named on purpose
// (vendor/x) is read although vendor is excluded elsewhere.
func (f readManyFilter) defaultExcluded(walkRel string) bool {
	if !f.defaults {
		return false
	}
	parts := strings.Split(walkRel, "/")
	for _, d := range parts[:len(parts)-1] {
		if readManyDefaultDirs[d] {
			return true
		}
	}
	name := parts[len(parts)-1]
	for _, p := range readManyDefaultFiles {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// expand turns paths into the sorted, de-duplicated files to read. A path
// outside the workspace or a malformed pattern fails the whole call: the
// model should fix its request rather than get part of it.
func (t *ReadManyFiles) expand(ctx context.Context, paths []string, f readManyFilter, run *readManyRun) ([]readManyCand, *Result, error) {
	seen := map[string]int{} // path -> index in cands
	var cands []readManyCand
	add := func(c readManyCand) bool {
		if i, ok := seen[c.path]; ok {
			cands[i].explicit = cands[i].explicit || c.explicit
			return true
		}
		if len(cands) >= readManyMaxCandidates {
			return false
		}
		seen[c.path] = len(cands)
		cands = append(cands, c)
		return true
	}
	truncated := false
	for _, raw := range paths {
		p := strings.TrimSpace(raw)
		if p == "" {
			r := Errorf("INVALID_TOOL_PARAMS", "paths and include must not contain empty strings")
			return nil, &r, nil
		}
		abs, r := resolveReadPath(t.ws, "paths", p)
		if r != nil {
			return nil, r, nil
		}
		fi, statErr := os.Stat(abs)
		if statErr != nil && strings.ContainsAny(p, "*?[{") {
			// Not a file of that name: a pattern.
			files, r, err := t.expandPattern(ctx, p, f, run)
			if err != nil || r != nil {
				return nil, r, err
			}
			for _, c := range files {
				truncated = !add(c) || truncated
			}
			continue
		}
		switch {
		case statErr != nil && errors.Is(statErr, os.ErrNotExist):
			run.skip(skipNotFound, abs)
		case statErr != nil:
			run.skip(skipUnreadable, fmt.Sprintf("%s (%v)", abs, statErr))
		case fi.IsDir():
			files, err := t.walkFiles(ctx, abs, "", f, run)
			if err != nil {
				return nil, nil, err
			}
			for _, c := range files {
				truncated = !add(c) || truncated
			}
		default:
			if f.excluded(displayPath(t.ws, abs)) {
				run.skip(skipExcluded, abs)
				continue
			}
			truncated = !add(readManyCand{path: abs, explicit: true}) || truncated
		}
	}
	if truncated {
		run.notes = append(run.notes, fmt.Sprintf("The paths matched more than %d files; only the first %d found were considered. Name fewer or narrower paths.",
			readManyMaxCandidates, readManyMaxCandidates))
	}
	slices.SortFunc(cands, func(a, b readManyCand) int { return cmp.Compare(a.path, b.path) })
	return cands, nil, nil
}

// expandPattern walks the static part of a glob pattern (as glob does)
// and returns the files below it that match the rest.
func (t *ReadManyFiles) expandPattern(ctx context.Context, pattern string, f readManyFilter, run *readManyRun) ([]readManyCand, *Result, error) {
	full := filepath.ToSlash(pattern)
	if !filepath.IsAbs(full) {
		full = walkDirPrefix(t.ws.Root()) + full
	}
	base, rest := doublestar.SplitPattern(full)
	if !doublestar.ValidatePattern(rest) {
		r := Errorf("INVALID_TOOL_PARAMS", "invalid glob pattern %q", pattern)
		return nil, &r, nil
	}
	base, err := t.ws.ResolveRead(filepath.Clean(base))
	if err != nil {
		kind := "INVALID_TOOL_PARAMS"
		if errors.Is(err, ErrOutsideWorkspace) {
			kind = "PATH_OUTSIDE_WORKSPACE"
		}
		r := Errorf(kind, "pattern %q: %v", pattern, err)
		return nil, &r, nil
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		run.notes = append(run.notes, fmt.Sprintf("No files match the pattern %q.", pattern))
		return nil, nil, nil
	}
	files, err := t.walkFiles(ctx, base, strings.ToLower(rest), f, run)
	if err == nil && len(files) == 0 {
		run.notes = append(run.notes, fmt.Sprintf("No files match the pattern %q (files ignored by .gitignore or the excludes do not count).", pattern))
	}
	return files, nil, err
}

// walkFiles lists the files below dir that .gitignore and the excludes
// let through and that match pattern (lower case, relative to dir; ""
// matches all).
func (t *ReadManyFiles) walkFiles(ctx context.Context, dir, pattern string, f readManyFilter, run *readManyRun) ([]readManyCand, error) {
	opts := walkOptions{Root: dir, IgnoreRoot: walkIgnoreRoot(t.ws, dir), Workers: runtime.GOMAXPROCS(0)}
	if pattern != "" && !strings.Contains(pattern, "**") && !strings.Contains(pattern, "{") {
		opts.MaxDepth = strings.Count(pattern, "/") + 1
	}
	type found struct {
		files              []readManyCand
		excluded, defaults []string
	}
	per := make([]found, opts.Workers)
	var n atomic.Int64
	stats, err := walkTree(ctx, opts, func(w int, wf walkFile) bool {
		if pattern != "" && !doublestar.MatchUnvalidated(pattern, strings.ToLower(wf.Rel)) {
			return true
		}
		switch {
		case f.defaultExcluded(wf.Rel):
			per[w].defaults = append(per[w].defaults, wf.Path)
		case f.excluded(displayPath(t.ws, wf.Path)):
			per[w].excluded = append(per[w].excluded, wf.Path)
		default:
			per[w].files = append(per[w].files, readManyCand{path: wf.Path})
			// Past the cap nothing more is read; stop walking.
			return n.Add(1) <= readManyMaxCandidates
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	var files []readManyCand
	for _, p := range per {
		files = append(files, p.files...)
		for _, x := range p.excluded {
			run.skip(skipExcluded, x)
		}
		for _, x := range p.defaults {
			run.skip(skipDefault, x)
		}
	}
	slices.SortFunc(files, func(a, b readManyCand) int { return cmp.Compare(a.path, b.path) })
	if stats.Unreadable > 0 {
		run.notes = append(run.notes, strings.TrimPrefix(searchUnreadableNote(stats), "\n"))
	}
	return files, nil
}
