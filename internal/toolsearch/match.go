package toolsearch

import (
	"cmp"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// Scores of a query word found in a tool: in the last part of its name
// (the server's tool name), elsewhere in its name, in its description.
const (
	scoreNamePart = 10
	scoreName     = 5
	scoreDesc     = 2
)

// stopWords carry no meaning in a search for a tool.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "can": true, "do": true, "for": true, "from": true,
	"how": true, "in": true, "is": true, "it": true, "me": true, "my": true, "of": true, "on": true,
	"or": true, "the": true, "this": true, "to": true, "tool": true, "tools": true, "with": true,
}

// match ranks ts against the query's words and returns the best limit of
// those that match at all. A word written +word must be in the name.
func match(ts []tools.Tool, query string, limit int) []tools.Tool {
	var words, required []string
	for _, f := range strings.Fields(strings.ToLower(query)) {
		req := strings.HasPrefix(f, "+")
		w := strings.Trim(f, "+\"'.,;:!?()[]{}")
		if len(w) < 2 || stopWords[w] {
			continue
		}
		if req {
			required = append(required, w)
		}
		words = append(words, w)
	}
	type scored struct {
		t     tools.Tool
		score int
	}
	var hits []scored
	for _, t := range ts {
		name := strings.ToLower(t.Name())
		if slices.ContainsFunc(required, func(w string) bool { return !strings.Contains(name, w) }) {
			continue
		}
		if s := score(name, strings.ToLower(t.Description()), words); s > 0 {
			hits = append(hits, scored{t, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.t.Name(), b.t.Name())
	})
	out := make([]tools.Tool, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.t)
	}
	return out
}

// score adds up, for each word, the best place it is found.
func score(name, desc string, words []string) int {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	total := 0
	for _, w := range words {
		switch {
		case slices.Contains(parts, w):
			total += scoreNamePart
		case strings.Contains(name, w):
			total += scoreName
		}
		if strings.Contains(desc, w) {
			total += scoreDesc
		}
	}
	return total
}
