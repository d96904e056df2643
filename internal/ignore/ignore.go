// Package ignore decides which paths a .gitignore-aware directory walk must
// skip, with git's semantics: the pattern syntax of gitignore(5) (negation
// with "!", anchoring with "/", directory-only patterns ending in "/", "**",
// "*", "?", bracket classes, backslash escapes), last-match-wins inside one
// file, deeper files overriding shallower ones, and ".git" always ignored.
//
// It owns parsing and matching only. It reads no files and walks no
// directories: a walker parses each .gitignore it meets with Parse, keeps the
// chain of files that apply to a directory as a Stack, and asks the stack
// about every entry. Like git, the walker must not descend into an ignored
// directory; that is how "a file cannot be re-included if a parent directory
// of it is excluded" holds, so a Stack never looks at parent directories
// itself.
//
// Matching is byte-wise and case-sensitive, like git with core.ignoreCase
// off. Paths are slash-separated and relative to the root of the walk.
package ignore

import (
	"bytes"
	"strings"
)

// Verdict is what a set of patterns says about a path.
type Verdict int8

const (
	// NoMatch: no pattern matched; an outer file (or the default,
	// "not ignored") decides.
	NoMatch Verdict = iota
	// Ignore: the last matching pattern excludes the path.
	Ignore
	// Include: the last matching pattern is a negation ("!pattern").
	Include
)

func (v Verdict) String() string {
	switch v {
	case Ignore:
		return "ignore"
	case Include:
		return "include"
	}
	return "no match"
}

// AlwaysIgnored reports whether an entry named name is skipped whatever the
// ignore files say. Git never treats its own metadata as content: ".git" is
// a directory in a repository and a file in a worktree or submodule, and
// both are left out.
func AlwaysIgnored(name string) bool { return name == ".git" }

// Matcher holds the patterns of one ignore file.
type Matcher struct {
	dir   string // directory of the file relative to the walk root; "" is the root
	rules []rule
	tag   uint8 // the caller's label for the kind of file (SetTag)
}

// rule is one pattern line.
type rule struct {
	negate   bool
	dirOnly  bool // pattern ended in "/"
	baseOnly bool // no "/" in the pattern: matched against the last path component
	never    bool // malformed (unterminated class, trailing backslash): matches nothing
	segs     []segment
}

// Parse compiles the contents of an ignore file found in dir, a
// slash-separated path relative to the walk root ("" for the root itself).
// Malformed patterns match nothing, as in git; Parse never fails.
func Parse(dir string, data []byte) *Matcher {
	m := &Matcher{dir: strings.Trim(dir, "/")}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // git skips a UTF-8 BOM
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if r, ok := parseRule(string(line)); ok {
			m.rules = append(m.rules, r)
		}
	}
	return m
}

// Dir returns the directory the matcher's file lives in.
func (m *Matcher) Dir() string { return m.dir }

// Len returns the number of patterns (comments and blank lines excluded).
func (m *Matcher) Len() int { return len(m.rules) }

// SetTag labels m with tag, which the caller chooses to tell kinds of
// ignore files apart (a walker honouring .gitignore and another file);
// Stack.Decide reports it and Stack.MatchExcept leaves tagged files out.
// It returns m; a nil m stays nil.
func (m *Matcher) SetTag(tag uint8) *Matcher {
	if m != nil {
		m.tag = tag
	}
	return m
}

// Tag returns the label SetTag gave m, 0 by default.
func (m *Matcher) Tag() uint8 {
	if m == nil {
		return 0
	}
	return m.tag
}

// Match returns the verdict of the last pattern that matches rel, a
// slash-separated path relative to the walk root. A path outside the
// matcher's directory never matches.
func (m *Matcher) Match(rel string, isDir bool) Verdict {
	if m == nil || len(m.rules) == 0 {
		return NoMatch
	}
	local := rel
	if m.dir != "" {
		if len(rel) <= len(m.dir) || rel[len(m.dir)] != '/' || rel[:len(m.dir)] != m.dir {
			return NoMatch
		}
		local = rel[len(m.dir)+1:]
	}
	if local == "" {
		return NoMatch
	}
	base := local[strings.LastIndexByte(local, '/')+1:]
	for i := len(m.rules) - 1; i >= 0; i-- {
		r := &m.rules[i]
		if r.matches(local, base, isDir) {
			if r.negate {
				return Include
			}
			return Ignore
		}
	}
	return NoMatch
}

func (r *rule) matches(local, base string, isDir bool) bool {
	if r.never || (r.dirOnly && !isDir) {
		return false
	}
	if r.baseOnly {
		s := &r.segs[0]
		// A lone "**" without a slash is an ordinary star run in git's
		// wildmatch and matches any name.
		return s.kind == segGlobstar || s.match(base)
	}
	return matchSegments(r.segs, local)
}

// Stack is the chain of ignore files that apply inside one directory, the
// innermost first. The zero value (nil) is an empty stack. A Stack is
// immutable, so sibling directories share their parent's chain safely
// across goroutines.
type Stack struct {
	m      *Matcher
	parent *Stack
}

// Push returns s with m as its innermost file. An empty or nil m returns s.
func (s *Stack) Push(m *Matcher) *Stack {
	if m == nil || len(m.rules) == 0 {
		return s
	}
	return &Stack{m: m, parent: s}
}

// Match returns the verdict of the innermost file with a matching pattern:
// deeper .gitignore files override shallower ones.
func (s *Stack) Match(rel string, isDir bool) Verdict {
	for ; s != nil; s = s.parent {
		if v := s.m.Match(rel, isDir); v != NoMatch {
			return v
		}
	}
	return NoMatch
}

// Decide is Match that also returns the file that decided: the matcher
// whose pattern matched, nil for NoMatch.
func (s *Stack) Decide(rel string, isDir bool) (Verdict, *Matcher) {
	for ; s != nil; s = s.parent {
		if v := s.m.Match(rel, isDir); v != NoMatch {
			return v, s.m
		}
	}
	return NoMatch, nil
}

// MatchExcept is Match with the files tagged tag left out, as if they
// were not there.
func (s *Stack) MatchExcept(rel string, isDir bool, tag uint8) Verdict {
	for ; s != nil; s = s.parent {
		if s.m.tag == tag {
			continue
		}
		if v := s.m.Match(rel, isDir); v != NoMatch {
			return v
		}
	}
	return NoMatch
}

// Ignored reports whether the entry at rel (relative to the walk root) is
// skipped, counting the always-ignored names. The caller has already
// established that no parent directory of rel is ignored.
func (s *Stack) Ignored(rel string, isDir bool) bool {
	if AlwaysIgnored(rel[strings.LastIndexByte(rel, '/')+1:]) {
		return true
	}
	return s.Match(rel, isDir) == Ignore
}

// parseRule turns one line of an ignore file into a rule; ok is false for
// blank lines and comments.
func parseRule(line string) (r rule, ok bool) {
	if line == "" || line[0] == '#' {
		return r, false
	}
	line = trimTrailingSpaces(line)
	if line != "" && line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return r, false
	}
	// Git anchors a pattern with a slash at the beginning or in the middle
	// (the trailing one is gone by now) to the file's directory; without
	// one it may match at any depth, which is a match on the last component.
	r.baseOnly = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return r, false
	}
	parts, good := splitPattern(line)
	if !good {
		r.never = true
		return r, true
	}
	for _, p := range parts {
		s, good := compileSegment(p)
		if !good {
			r.never = true
			return r, true
		}
		r.segs = append(r.segs, s)
	}
	return r, true
}

// trimTrailingSpaces drops trailing spaces unless escaped with a backslash,
// as git does (tabs are kept).
func trimTrailingSpaces(s string) string {
	end := 0 // one past the last byte to keep
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++ // the escaped byte is content, even a space
			end = i + 1
			continue
		}
		if s[i] != ' ' {
			end = i + 1
		}
	}
	return s[:end]
}

// splitPattern cuts a pattern at its slashes, leaving slashes inside bracket
// classes alone and treating an escaped slash as a separator (in git's
// wildmatch "\/" matches exactly the separator). ok is false for a pattern
// git would never match (a trailing lone backslash).
func splitPattern(p string) (parts []string, ok bool) {
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 >= len(p) {
				return nil, false
			}
			if p[i+1] == '/' {
				parts = append(parts, p[start:i])
				start = i + 2
			}
			i++
		case '[':
			// An unterminated class is diagnosed by compileSegment.
			if _, end, good := parseClass(p, i); good {
				i = end - 1
			}
		case '/':
			parts = append(parts, p[start:i])
			start = i + 1
		}
	}
	return append(parts, p[start:]), true
}
