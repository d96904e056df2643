package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// closeNames lists the entries of dir whose names are close to name.
func closeNames(dir, name string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) > 5000 {
		return nil
	}
	type cand struct {
		path string
		d    int
	}
	var cs []cand
	ln := strings.ToLower(name)
	for _, e := range entries {
		other := strings.ToLower(e.Name())
		if d := editDistance(ln, other); d <= max(1, len(ln)/5) {
			cs = append(cs, cand{filepath.Join(dir, e.Name()), d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.path
	}
	return out
}

// editDistance is the Levenshtein distance of a and b by bytes, given up
// early (returning a large number) when the lengths differ too much.
func editDistance(a, b string) int {
	if d := len(a) - len(b); d > 3 || d < -3 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
