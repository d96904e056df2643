// Package spell finds the names a misspelt name may have meant: the edit
// distance between two names and the closest of a list. It serves the
// "did you mean" of unknown tool names and missing files; it knows nothing
// of either.
package spell

import (
	"slices"
	"strings"
)

// Distance is the Levenshtein distance between a and b, by bytes.
func Distance(a, b string) int {
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

// Closest returns up to most of candidates that close accepts, nearest
// first (ties keep the candidates' order). close gets a candidate and its
// distance to name, both as key made them (key may be nil).
func Closest(name string, candidates []string, most int, key func(string) string, close func(cand string, d int) bool) []string {
	if key == nil {
		key = func(s string) string { return s }
	}
	n := key(name)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, c := range candidates {
		k := key(c)
		if d := Distance(n, k); close(k, d) {
			cs = append(cs, cand{c, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	out := make([]string, 0, min(most, len(cs)))
	for i := 0; i < len(cs) && i < most; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// Lower is a key for Closest that ignores case and the -/_ spelling.
func Lower(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
