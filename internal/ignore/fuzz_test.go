package ignore

import (
	"strings"
	"testing"
)

// FuzzMatch feeds arbitrary ignore files and paths to the matcher. Beyond
// never panicking, negating a single-pattern file must invert its verdict,
// and a file must answer the same for a path as the same file placed in a
// subdirectory answers for that path below it.
func FuzzMatch(f *testing.F) {
	for _, seed := range []struct{ pattern, path string }{
		{"*.go", "a/b.go"},
		{"/a/**/b/", "a/x/y/b"},
		{"[!a-c]?[[:alpha:]]*", "dx/y"},
		{"[", "["},
		{"\\", "a"},
		{"a\\/b", "a/b"},
		{"**", ""},
		{"[[:x", "a"},
		{"!#x \\ ", "#x "},
		{"a/**", "a/"},
		{"[a-\\]]", "]"},
	} {
		f.Add(seed.pattern, seed.path, false)
	}
	f.Fuzz(func(t *testing.T, pattern, path string, isDir bool) {
		m := Parse("", []byte(pattern))
		v := m.Match(path, isDir)
		if path != "" {
			(*Stack)(nil).Push(m).Ignored(path, isDir)
		}
		// A second file tagged apart: Decide agrees with Match, and
		// leaving the tagged file out leaves the first one's verdict.
		st := (*Stack)(nil).Push(Parse("", []byte(pattern))).Push(Parse("", []byte(path)).SetTag(1))
		dv, dm := st.Decide(path, isDir)
		if dv != st.Match(path, isDir) || (dv == NoMatch) != (dm == nil) {
			t.Fatalf("Decide(%q) = %v, %v; Match says %v", path, dv, dm, st.Match(path, isDir))
		}
		if got := st.MatchExcept(path, isDir, 1); got != v {
			t.Fatalf("MatchExcept(%q) = %v, the untagged file alone says %v", path, got, v)
		}

		sub := Parse("sub", []byte(pattern))
		if got := sub.Match("sub/"+path, isDir); got != v && path != "" {
			t.Fatalf("pattern %q: %q gives %v at the root but %v under sub/", pattern, path, v, got)
		}

		if strings.ContainsAny(pattern, "\n\r") || pattern == "" {
			return
		}
		line := strings.TrimLeft(pattern, "!")
		if line == "" || line[0] == '#' || line != pattern {
			return
		}
		neg := Parse("", []byte("!"+pattern)).Match(path, isDir)
		want := map[Verdict]Verdict{NoMatch: NoMatch, Ignore: Include}[v]
		if neg != want {
			t.Fatalf("pattern %q on %q: %v, negated %v", pattern, path, v, neg)
		}
	})
}
