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
