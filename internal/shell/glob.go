package shell

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxGlobMatches bounds how many paths one glob may expand to while it is
// checked; a glob that matches more is not read-only.
const maxGlobMatches = 4096

// globMatchesInside expands the glob word a from directory dir as bash
// would, against the file system, and reports whether every match may be
// read: inside the roots once its links are followed, and not under
// /proc, /sys or /dev. The expansion over-approximates bash's: a leading
// dot is matched by * and ?, so hidden names count too, and the case of
// letters is ignored when the environment turns nocaseglob on. The word
// as written is checked as well, for bash passes it on unchanged when
// nothing matches.
func (cl *classifier) globMatchesInside(dir string, a word) bool {
	pattern := a.pattern
	base := dir
	if strings.HasPrefix(pattern, "/") {
		base = "/"
	}
	if !cl.insideFrom(base, unescapeGlob(pattern)) {
		return false
	}
	nocase := strings.Contains(os.Getenv("BASHOPTS"), "nocaseglob")
	cands := []string{base}
	for _, comp := range strings.Split(pattern, "/") {
		if comp == "" {
			continue
		}
		if !hasGlobMeta(comp) {
			lit := unescapeGlob(comp)
			for i := range cands {
				cands[i] = filepath.Join(cands[i], lit)
			}
			continue
		}
		if nocase {
			comp = strings.ToLower(comp)
		}
		var next []string
		for _, c := range cands {
			entries, err := os.ReadDir(c)
			if err != nil {
				continue // not a directory, or unreadable: nothing matches there
			}
			for _, e := range entries {
				name := e.Name()
				if nocase {
					name = strings.ToLower(name)
				}
				m, err := path.Match(comp, name)
				if err != nil {
					return false
				}
				if m {
					if next = append(next, filepath.Join(c, e.Name())); len(next) > maxGlobMatches {
						return false
					}
				}
			}
		}
		cands = next
	}
	for _, c := range cands {
		if !cl.insideFrom("", c) {
			return false
		}
	}
	return true
}

// hasGlobMeta reports whether a path.Match pattern holds an unescaped
// wildcard.
func hasGlobMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescapeGlob removes the backslashes of a path.Match pattern, giving the
// name bash passes on when the pattern matches nothing.
func unescapeGlob(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
