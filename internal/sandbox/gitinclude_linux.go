package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// gitIncludeLimit bounds how many configuration files the includes of the
// user's git configuration may add.
const gitIncludeLimit = 32

// gitIncludes returns the files that the git configuration files in
// files include ([include] and [includeIf "…"] path = …), and those
// they include in turn: git fails outright when it cannot read one. home
// expands a leading "~/"; a relative path is relative to the including
// file.
func gitIncludes(files []string, home string) []string {
	seen := map[string]bool{}
	var out []string
	queue := append([]string(nil), files...)
	for len(queue) > 0 && len(out) < gitIncludeLimit {
		f := queue[0]
		queue = queue[1:]
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, p := range gitIncludePaths(string(b)) {
			if rest, ok := strings.CutPrefix(p, "~/"); ok && filepath.IsAbs(home) {
				p = filepath.Join(home, rest)
			} else if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(f), p)
			}
			p = filepath.Clean(p)
			if !seen[p] && len(out) < gitIncludeLimit {
				seen[p] = true
				out = append(out, p)
				queue = append(queue, p)
			}
		}
	}
	return out
}

// gitIncludePaths returns the path values of the include and includeIf
// sections of a git configuration file's text.
func gitIncludePaths(text string) []string {
	var out []string
	include := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				include = false
				continue
			}
			name := strings.ToLower(strings.TrimSpace(line[1:end]))
			include = name == "include" || strings.HasPrefix(name, "includeif ") || strings.HasPrefix(name, "includeif\"")
			line = strings.TrimSpace(line[end+1:]) // "[include] path = x" on one line
		}
		if !include {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "path") {
			continue
		}
		val = strings.TrimSpace(val)
		if strings.HasPrefix(val, `"`) {
			if end := strings.IndexByte(val[1:], '"'); end >= 0 {
				val = val[1 : end+1]
			}
		} else if i := strings.IndexAny(val, "#;"); i >= 0 {
			val = strings.TrimSpace(val[:i])
		}
		if val != "" {
			out = append(out, val)
		}
	}
	return out
}
