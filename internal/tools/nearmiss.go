package tools

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/spell"
)

// nearMisses returns up to three existing paths a typo away from path,
// which does not exist: siblings whose names differ by case or a few
// letters ("byte.go" for "bytes.go"), or the same name in a sibling of
// its directory ("pkgs/x.go" for "pkg/x.go").
func nearMisses(path string) []string {
	dir, name := filepath.Split(filepath.Clean(path))
	dir = filepath.Clean(dir)
	var out []string
	if _, err := os.Stat(dir); err == nil {
		out = closeNames(dir, name)
	} else {
		parent, base := filepath.Split(dir)
		for _, d := range closeNames(filepath.Clean(parent), base) {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				out = append(out, filepath.Join(d, name))
			}
		}
	}
	return out[:min(len(out), 3)]
}

// closeNames lists the entries of dir whose names are close to name,
// ignoring case.
func closeNames(dir, name string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) > 5000 {
		return nil
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	ln := strings.ToLower(name)
	near := spell.Closest(name, names, 3, strings.ToLower, func(_ string, d int) bool { return d <= max(1, len(ln)/5) })
	for i, n := range near {
		near[i] = filepath.Join(dir, n)
	}
	return near
}
