package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// anchor is the directory a path pattern is relative to.
type anchor uint8

const (
	anchorRoots anchor = iota // each workspace root
	anchorHome                // the user's home directory
	anchorFS                  // the file system root
)

// pathPattern is a parsed path rule.
type pathPattern struct {
	anchor anchor
	glob   string // doublestar pattern, slash-separated, relative to anchor
}

// parsePathPattern parses a path specifier: //abs, ~/home-relative,
// /root-relative, ./root-relative or a gitignore-style relative pattern.
func parsePathPattern(spec string) (*pathPattern, error) {
	spec = filepath.ToSlash(spec)
	pp := &pathPattern{}
	rel := spec
	switch {
	case strings.HasPrefix(spec, "!"):
		return nil, errors.New("negated patterns are not supported; write an allow rule instead")
	case strings.HasPrefix(spec, "//"):
		pp.anchor, rel = anchorFS, strings.TrimLeft(spec, "/")
	case spec == "~":
		pp.anchor, rel = anchorHome, ""
	case strings.HasPrefix(spec, "~/"):
		pp.anchor, rel = anchorHome, spec[2:]
	case strings.HasPrefix(spec, "~"):
		return nil, errors.New("~user is not supported; write ~/ for your home or //path for an absolute path")
	case strings.HasPrefix(spec, "/"):
		rel = spec[1:]
	case strings.HasPrefix(spec, "./"):
		rel = spec[2:]
	case !strings.Contains(strings.TrimSuffix(spec, "/"), "/"):
		// As in .gitignore, a name without a slash matches at any depth.
		rel = "**/" + spec
	}
	// A trailing slash means a directory; since a pattern that matches a
	// directory matches everything below it, nothing more is needed.
	rel = strings.TrimRight(rel, "/")
	if rel == "" {
		rel = "**"
	}
	for _, el := range strings.Split(rel, "/") {
		if el == ".." {
			return nil, errors.New(`".." is not allowed in a path pattern; write the path from its anchor`)
		}
	}
	if !doublestar.ValidatePattern(rel) {
		return nil, fmt.Errorf("%q is not a valid glob pattern", spec)
	}
	pp.glob = rel
	return pp, nil
}

// foldCase is set where file systems usually ignore case, so that a deny
// rule for .env also catches .ENV.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// match reports whether the absolute, clean path p, or a directory above it
// within an anchor, matches the pattern.
func (pp *pathPattern) match(p string, anchors []string) bool {
	glob := pp.glob
	if foldCase {
		glob, p = strings.ToLower(glob), strings.ToLower(p)
	}
	for _, a := range anchors {
		if foldCase {
			a = strings.ToLower(a)
		}
		rel, ok := relWithin(a, p)
		if !ok {
			continue
		}
		if rel == "" {
			if glob == "**" {
				return true
			}
			continue
		}
		for r := rel; ; {
			if doublestar.MatchUnvalidated(glob, r) {
				return true
			}
			i := strings.LastIndexByte(r, '/')
			if i < 0 {
				break
			}
			r = r[:i]
		}
	}
	return false
}

// relWithin returns p relative to dir, slash-separated, when p is dir ("")
// or below it.
func relWithin(dir, p string) (string, bool) {
	if p == dir {
		return "", true
	}
	if dir == string(filepath.Separator) {
		return filepath.ToSlash(p[1:]), true
	}
	if rest, ok := strings.CutPrefix(p, dir+string(filepath.Separator)); ok {
		return filepath.ToSlash(rest), true
	}
	return "", false
}

// resolvedPath is a path argument of a call as the policy sees it.
type resolvedPath struct {
	lexical string // absolute and clean, as the tool will open it
	real    string // after following every symbolic link; "" if that failed
}

// resolvePath resolves a path argument the way the file tools do: relative
// to the primary root, cleaned lexically (so "src/../.git" is ".git" before
// any link is followed, as the tool will see it), then with symbolic links
// followed.
func (p *Policy) resolvePath(arg string) resolvedPath {
	lex := arg
	if !filepath.IsAbs(lex) {
		lex = filepath.Join(p.ws.Root(), lex)
	}
	lex = filepath.Clean(lex)
	real, err := followLinks(lex)
	if err != nil {
		real = ""
	}
	return resolvedPath{lexical: lex, real: real}
}

// maxLinks bounds the symbolic links followed for one path, as the kernel
// does (ELOOP).
const maxLinks = 40

// errLinkLoop reports too many symbolic links.
var errLinkLoop = errors.New("too many levels of symbolic links")

// followLinks resolves every symbolic link in the absolute path p, one
// component at a time, the way the kernel would when opening it: a link's
// target replaces it, ".." after a link climbs from the target, and a link
// whose target does not exist yet is still followed, because writing
// through it creates the target. Components that do not exist are kept as
// written.
func followLinks(p string) (string, error) {
	done := filepath.VolumeName(p) + string(filepath.Separator)
	todo := splitPath(p[len(done)-1:])
	links, missing := 0, false
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		if missing {
			done = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing, done = true, next
			continue
		case err != nil:
			return "", fmt.Errorf("resolve %s: %w", p, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("resolve %s: %w", p, errLinkLoop)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			done = filepath.VolumeName(target) + string(filepath.Separator)
			target = target[len(done)-1:]
		}
		todo = append(splitPath(target), todo...)
	}
	return done, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(c rune) bool { return c == filepath.Separator || c == '/' })
}

// inGitDir reports whether p has a .git component: the repository's
// metadata (hooks, config) is code that git runs, so no tool may write it,
// in any repository, in any mode.
func inGitDir(p string) bool {
	return slices.ContainsFunc(splitPath(p), func(el string) bool { return strings.EqualFold(el, ".git") })
}
