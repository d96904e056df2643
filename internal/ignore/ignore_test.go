package ignore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// check is one question put to a matcher built from one ignore file.
type check struct {
	path  string
	isDir bool
	want  Verdict
}

func file(p string, v Verdict) check { return check{path: p, want: v} }
func dir(p string, v Verdict) check  { return check{path: p, isDir: true, want: v} }

// TestGitignoreSemantics follows the statements of gitignore(5) one by one.
func TestGitignoreSemantics(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		checks []check
	}{
		{"name matches at any depth", "foo", []check{
			file("foo", Ignore), dir("foo", Ignore), file("a/foo", Ignore), file("a/b/foo", Ignore),
			file("foobar", NoMatch), file("foo/bar", NoMatch),
		}},
		{"trailing slash matches directories only", "foo/", []check{
			dir("foo", Ignore), dir("a/foo", Ignore), file("foo", NoMatch), file("a/foo", NoMatch),
		}},
		{"leading slash anchors", "/foo", []check{
			file("foo", Ignore), dir("foo", Ignore), file("a/foo", NoMatch),
		}},
		{"middle slash anchors", "doc/frotz/", []check{
			dir("doc/frotz", Ignore), dir("a/doc/frotz", NoMatch), file("doc/frotz", NoMatch),
		}},
		{"star does not cross slashes", "doc/*.txt", []check{
			file("doc/a.txt", Ignore), file("doc/sub/a.txt", NoMatch), file("x/doc/a.txt", NoMatch),
		}},
		{"extension", "*.o", []check{
			file("x.o", Ignore), file("a/b/x.o", Ignore), file(".o", Ignore), file("x.oo", NoMatch), file("x.o/y", NoMatch),
		}},
		{"prefix", "build*", []check{
			dir("build", Ignore), dir("a/build-out", Ignore), file("rebuild", NoMatch),
		}},
		{"leading double star", "**/foo", []check{
			file("foo", Ignore), file("a/foo", Ignore), file("a/b/foo", Ignore), file("afoo", NoMatch),
		}},
		{"leading double star with path", "**/foo/bar", []check{
			file("foo/bar", Ignore), file("x/y/foo/bar", Ignore), file("foo/x/bar", NoMatch),
		}},
		{"trailing double star matches inside only", "abc/**", []check{
			file("abc/x", Ignore), file("abc/x/y", Ignore), dir("abc", NoMatch), file("x/abc/y", NoMatch),
		}},
		{"middle double star matches zero or more directories", "a/**/b", []check{
			file("a/b", Ignore), file("a/x/b", Ignore), file("a/x/y/b", Ignore), file("a/xb", NoMatch), file("a/b/c", NoMatch),
		}},
		{"double star not bounded by slashes is a star", "a**b", []check{
			file("ab", Ignore), file("axyb", Ignore), file("d/axb", Ignore), file("ax/b", NoMatch),
		}},
		{"double star after a name is a star", "foo/**bar", []check{
			file("foo/bar", Ignore), file("foo/xbar", Ignore), file("foo/x/bar", NoMatch),
		}},
		{"lone double star matches everything", "**", []check{
			file("a", Ignore), dir("a/b", Ignore),
		}},
		{"question mark", "?.c", []check{
			file("a.c", Ignore), file("ab.c", NoMatch), file(".c", NoMatch),
		}},
		{"class and range", "[abc]x[0-9]", []check{
			file("ax1", Ignore), file("cx9", Ignore), file("dx1", NoMatch), file("axa", NoMatch),
		}},
		{"negated class", "[!abc]x", []check{
			file("dx", Ignore), file("ax", NoMatch),
		}},
		{"caret negates too", "[^abc]x", []check{
			file("dx", Ignore), file("bx", NoMatch),
		}},
		{"bracket first is a member", "[]]", []check{
			file("]", Ignore), file("a", NoMatch),
		}},
		{"negated bracket first", "[!]]", []check{
			file("a", Ignore), file("]", NoMatch),
		}},
		{"dash at the edges is literal", "[-a-]", []check{
			file("-", Ignore), file("a", Ignore), file("b", NoMatch),
		}},
		{"posix class", "[[:digit:]]*", []check{
			file("1abc", Ignore), file("abc", NoMatch),
		}},
		{"unknown posix class never matches", "[[:bogus:]]", []check{
			file("b", NoMatch), file("[[:bogus:]]", NoMatch),
		}},
		{"unterminated class never matches", "[abc", []check{
			file("a", NoMatch), file("[abc", NoMatch),
		}},
		{"class never matches a slash", "a[!x]b", []check{
			file("a/b", NoMatch), file("ayb", Ignore),
		}},
		{"escapes", "\\*\\?", []check{
			file("*?", Ignore), file("ab", NoMatch),
		}},
		{"comment and escaped hash", "#foo\n\\#bar", []check{
			file("#foo", NoMatch), file("#bar", Ignore),
		}},
		{"escaped bang is literal", "\\!important", []check{
			file("!important", Ignore), file("important", NoMatch),
		}},
		{"trailing spaces are trimmed unless escaped", "foo  \nbar\\ ", []check{
			file("foo", Ignore), file("foo  ", NoMatch), file("bar ", Ignore), file("bar", NoMatch),
		}},
		{"trailing backslash never matches", "foo\\", []check{
			file("foo", NoMatch), file("foo\\", NoMatch),
		}},
		{"negation re-includes; last match wins", "*.log\n!keep.log", []check{
			file("a.log", Ignore), file("keep.log", Include), file("d/keep.log", Include),
		}},
		{"a later pattern overrides a negation", "!keep.log\n*.log", []check{
			file("keep.log", Ignore),
		}},
		{"crlf and bom", "\xef\xbb\xbfone\r\ntwo\r\n", []check{
			file("one", Ignore), file("two", Ignore), file("two\r", NoMatch),
		}},
		{"blank lines and lone slashes are nothing", "\n   \n/\n!/\n", []check{
			file("a", NoMatch), dir("a", NoMatch),
		}},
		{"double slash never matches", "a//b", []check{
			file("a/b", NoMatch),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Parse("", []byte(tt.file))
			for _, c := range tt.checks {
				if got := m.Match(c.path, c.isDir); got != c.want {
					t.Errorf("%q: Match(%q, dir=%v) = %v, want %v", tt.file, c.path, c.isDir, got, c.want)
				}
			}
		})
	}
}

func TestMatcherInSubdirectory(t *testing.T) {
	m := Parse("sub/dir/", []byte("foo\n/bar\nx/*.go\n"))
	if m.Dir() != "sub/dir" || m.Len() != 3 {
		t.Fatalf("Dir, Len = %q, %d", m.Dir(), m.Len())
	}
	for _, c := range []check{
		file("sub/dir/foo", Ignore),
		file("sub/dir/a/foo", Ignore),
		file("foo", NoMatch),        // above the file's directory
		file("sub/dirfoo", NoMatch), // sibling sharing a prefix
		file("sub/dir/bar", Ignore),
		file("sub/dir/a/bar", NoMatch), // anchored to sub/dir
		file("sub/dir/x/a.go", Ignore),
		file("sub/dir/y/x/a.go", NoMatch),
		dir("sub/dir", NoMatch), // the directory itself
	} {
		if got := m.Match(c.path, c.isDir); got != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestStackDeeperFilesOverride(t *testing.T) {
	var s *Stack
	if s.Ignored("a.txt", false) || s.Match("a", true) != NoMatch {
		t.Fatal("nil stack must ignore nothing")
	}
	root := s.Push(Parse("", []byte("*.txt\n!important.md\n*.md\n")))
	sub := root.Push(Parse("sub", []byte("!keep.txt\nlocal/\n")))
	if sub.Push(Parse("sub", nil)) != sub || sub.Push(nil) != sub {
		t.Error("pushing an empty matcher must return the same stack")
	}
	for _, c := range []struct {
		s     *Stack
		path  string
		isDir bool
		want  bool
	}{
		{root, "a.txt", false, true},
		{root, "keep.txt", false, true},
		{sub, "sub/keep.txt", false, false}, // deeper negation wins
		{sub, "sub/other.txt", false, true}, // root rule still applies below
		{sub, "sub/local", true, true},
		{root, "local", true, false},
		{root, "important.md", false, true}, // last line wins within a file
		{root, ".git", true, true},          // always ignored
		{sub, "sub/.git", false, true},      // also as a file (worktrees)
		{root, "x.go", false, false},
	} {
		if got := c.s.Ignored(c.path, c.isDir); got != c.want {
			t.Errorf("Ignored(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// walkNotIgnored lists the files under root the way a walker using this
// package would: nested .gitignore files pushed on entry, ignored
// directories pruned.
func walkNotIgnored(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	var walk func(dir, rel string, s *Stack)
	walk = func(dir, rel string, s *Stack) {
		if data, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
			s = s.Push(Parse(rel, data))
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			r := e.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			if s.Ignored(r, e.IsDir()) {
				continue
			}
			if e.IsDir() {
				walk(filepath.Join(dir, e.Name()), r, s)
			} else {
				out = append(out, r)
			}
		}
	}
	walk(root, "", nil)
	slices.Sort(out)
	return out
}

// gitNotIgnored asks git itself for the untracked files it does not ignore.
func gitNotIgnored(t *testing.T, root string) []string {
	t.Helper()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		// Keep the user's and the system's global excludes out of it.
		cmd.Env = append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+root, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		run("init", "-q")
	}
	var out []string
	for _, f := range strings.Split(run("ls-files", "--others", "--exclude-standard", "-z"), "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// TestAgreesWithGitOnNestedFiles compares a full walk with git's own answer
// on a tree exercising nested files, negation, anchoring and parent
// exclusion.
func TestAgreesWithGitOnNestedFiles(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":                "*.log\n!keep.log\n/build/\ntmp*\ndocs/**/*.html\nvendor/\n!vendor/keep\n",
		"a.log":                     "",
		"keep.log":                  "",
		"main.go":                   "",
		"build/out.bin":             "",
		"src/build/x.go":            "", // /build/ is anchored: this one stays
		"src/tmpfile":               "",
		"src/.gitignore":            "!debug.log\n*.gen.go\n/local\n",
		"src/debug.log":             "",
		"src/x.gen.go":              "",
		"src/local/a":               "",
		"src/deep/local/b":          "", // /local anchored to src
		"src/deep/.gitignore":       "!*.gen.go\n",
		"src/deep/y.gen.go":         "",
		"docs/a.html":               "",
		"docs/x/y/b.html":           "",
		"docs/readme.md":            "",
		"vendor/keep":               "", // parent excluded: cannot be re-included
		"notes/[x].txt":             "",
		"notes/.gitignore":          "\\[x\\].txt\n",
		"dir with space/f.txt":      "",
		"dir with space/.gitignore": "f.txt   \n",
	})
	got, want := walkNotIgnored(t, root), gitNotIgnored(t, root)
	if !slices.Equal(got, want) {
		t.Errorf("walk disagrees with git\n got: %q\nwant: %q", got, want)
	}
	if !slices.Contains(got, "src/deep/y.gen.go") || slices.Contains(got, "vendor/keep") {
		t.Errorf("expected nested negation to re-include and parent exclusion to win: %q", got)
	}
}

// TestAgreesWithGitRandomly builds random ignore files from git's syntax
// pieces over a fixed tree and checks every listing against git's.
func TestAgreesWithGitRandomly(t *testing.T) {
	needGit(t)
	if testing.Short() {
		t.Skip("runs git many times")
	}
	paths := []string{
		"a.go", "b.txt", "a/a.go", "a/b/c.txt", "a/b/a.go", "b/a/x.log", "b/b/b/b.go",
		"c/d/e/f.txt", "ab/cd.txt", "x.log", "a/x.log", "c/a.go", "c/ab/a.txt",
	}
	pieces := []string{
		"a", "b", "c", "*", "**", "?", "a*", "*.go", "*.txt", "[ab]", "[!a]", "x.log",
		"a/", "/a", "a/**", "**/a", "a/**/c.txt", "b/*", "*/a.go", "c/d", "/c/**/f.txt", "ab",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 25 {
		root := t.TempDir()
		files := map[string]string{}
		for _, p := range paths {
			files[p] = ""
		}
		var ignores []string
		for _, where := range []string{".gitignore", "a/.gitignore", "b/.gitignore", "c/.gitignore"} {
			var lines []string
			for range rng.IntN(4) {
				line := pieces[rng.IntN(len(pieces))]
				if rng.IntN(3) == 0 {
					line = "!" + line
				}
				lines = append(lines, line)
			}
			files[where] = strings.Join(lines, "\n") + "\n"
			ignores = append(ignores, fmt.Sprintf("%s: %q", where, lines))
		}
		writeTree(t, root, files)
		got, want := walkNotIgnored(t, root), gitNotIgnored(t, root)
		if !slices.Equal(got, want) {
			t.Errorf("iteration %d, %v\n got: %q\nwant: %q", iter, ignores, got, want)
		}
	}
}

func BenchmarkStackIgnored(b *testing.B) {
	s := (*Stack)(nil).Push(Parse("", []byte("node_modules/\n*.log\n/dist\n**/*.min.js\ncoverage/\n.env*\n!keep.log\n*.tmp\n[Bb]uild/\n")))
	s = s.Push(Parse("src", []byte("*.gen.go\n/local\n")))
	paths := []string{"src/pkg/file.go", "src/pkg/a.log", "src/x/app.min.js", "src/local", "src/deep/nested/path/to/thing.ts"}
	b.ReportAllocs()
	for i := range b.N {
		s.Ignored(paths[i%len(paths)], i%3 == 0)
	}
}

func TestDecideAndMatchExcept(t *testing.T) {
	const other = 1
	var s *Stack
	s = s.Push(Parse("", []byte("*.log\n")))
	s = s.Push(Parse("", []byte("*\n!keep.txt\n")).SetTag(other))
	for _, c := range []struct {
		rel     string
		v       Verdict
		tag     uint8
		without Verdict
	}{
		{"a.log", Ignore, other, Ignore},
		{"a.go", Ignore, other, NoMatch},
		{"keep.txt", Include, other, NoMatch},
	} {
		v, m := s.Decide(c.rel, false)
		if v != c.v || m.Tag() != c.tag {
			t.Errorf("Decide(%q) = %v from tag %d, want %v from tag %d", c.rel, v, m.Tag(), c.v, c.tag)
		}
		if got := s.MatchExcept(c.rel, false, other); got != c.without {
			t.Errorf("MatchExcept(%q) = %v, want %v", c.rel, got, c.without)
		}
	}
	if v, m := (*Stack)(nil).Push(Parse("", []byte("x\n"))).Decide("y", false); v != NoMatch || m != nil {
		t.Errorf("Decide of an unmatched path = %v, %v", v, m)
	}
	if (*Matcher)(nil).SetTag(other) != nil || (*Matcher)(nil).Tag() != 0 {
		t.Error("a nil matcher has a tag")
	}
}
