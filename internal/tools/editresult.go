package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// What an edit or an overwrite tells the model about where its change
// landed: the lines the new text now occupies, and those lines with a few
// around them, numbered as read_file numbers them, so that a following
// edit or read needs no fresh read_file to find its place.

const (
	// snippetContext is how many unchanged lines the snippet shows on
	// each side of a change.
	snippetContext = 3
	// snippetMaxLines caps the lines of one block of the snippet; a
	// longer block shows its start and end.
	snippetMaxLines = 40
	// snippetMaxTotal caps the snippet of all changes together.
	snippetMaxTotal = 80
	// regionsListed is how many places the summary names.
	regionsListed = 10
	// lcsMaxCells bounds the table of the minimal line diff; larger
	// changes are shown as one block of removals and additions.
	lcsMaxCells = 1 << 18
	// declMaxChars caps the declaration quoted in a hunk header.
	declMaxChars = 80
	// declMaxScan is how far above a hunk its declaration is looked for.
	declMaxScan = 5000
)

// lineRegion is lines [a, b) of the new text (0-based); a == b is the
// place where text was removed, before line a.
type lineRegion struct{ a, b int }

// spanRegions returns the lines of the new text that the spans' new text
// occupies, merged where they touch.
func spanRegions(nl textLines, spans []editSpan) []lineRegion {
	var out []lineRegion
	for _, s := range spans {
		r := lineRegion{a: nl.containing(s.newStart)}
		r.b = r.a
		if s.newEnd > s.newStart {
			r.b = nl.containing(s.newEnd-1) + 1
		}
		if k := len(out) - 1; k >= 0 && r.a <= out[k].b && (out[k].a < out[k].b || r.a == out[k].a) {
			out[k].b = max(out[k].b, r.b)
			continue
		}
		out = append(out, r)
	}
	return out
}

// lineRange writes lines [a, b) 1-based: "line 5" or "lines 5-9".
func lineRange(a, b int) string {
	if b-a <= 1 {
		return "line " + strconv.Itoa(a+1)
	}
	return fmt.Sprintf("lines %d-%d", a+1, b)
}

// whereNow says where the change now is in a text of n lines. what names
// the new text ("The new text"); count is the number of replacements.
func whereNow(what string, count int, regions []lineRegion, n int) string {
	if len(regions) == 0 {
		return ""
	}
	if n == 0 {
		return "The file is now empty."
	}
	if len(regions) == 1 {
		r := regions[0]
		switch {
		case r.a < r.b && count > 1:
			return fmt.Sprintf("The %d replacements are now in %s.", count, lineRange(r.a, r.b))
		case r.a < r.b:
			return fmt.Sprintf("%s is now %s.", what, lineRange(r.a, r.b))
		case r.a >= n:
			return "The text was removed at the end of the file."
		}
		return fmt.Sprintf("The text was removed just before what is now line %d.", r.a+1)
	}
	var parts []string
	for _, r := range regions[:min(len(regions), regionsListed)] {
		s := strings.TrimPrefix(strings.TrimPrefix(lineRange(r.a, max(r.b, r.a+1)), "lines "), "line ")
		parts = append(parts, s)
	}
	if more := len(regions) - regionsListed; more > 0 {
		parts = append(parts, fmt.Sprintf("%d more", more))
	}
	return fmt.Sprintf("The changes are now at lines %s.", joinList(parts))
}

// snippet shows the regions of the new text with snippetContext lines
// around them, each line numbered as read_file numbers it, under a line
// saying what it is. It is "" for an empty text.
func snippet(nl textLines, regions []lineRegion) string {
	n := nl.n()
	if n == 0 || len(regions) == 0 {
		return ""
	}
	var blocks []lineRegion
	for _, r := range regions {
		b := lineRegion{a: max(r.a-snippetContext, 0), b: min(max(r.b, r.a+1)+snippetContext, n)}
		if b.a >= b.b {
			b.a = max(n-snippetContext, 0)
		}
		if k := len(blocks) - 1; k >= 0 && b.a <= blocks[k].b {
			blocks[k].b = max(blocks[k].b, b.b)
			continue
		}
		blocks = append(blocks, b)
	}
	var sb strings.Builder
	if len(blocks) == 1 {
		fmt.Fprintf(&sb, "%s as read_file numbers them (the numbers are not part of the file):\n", capitalize(lineRange(blocks[0].a, blocks[0].b)))
	} else {
		sb.WriteString("The changed places as read_file numbers their lines (the numbers are not part of the file):\n")
	}
	total := 0
	for i, b := range blocks {
		if total >= snippetMaxTotal {
			fmt.Fprintf(&sb, "(%d more changed places not shown; read_file shows them)\n", len(blocks)-i)
			break
		}
		if i > 0 {
			sb.WriteString("...\n")
		}
		if b.b-b.a <= snippetMaxLines {
			writeNumbered(&sb, nl, b.a, b.b)
			total += b.b - b.a
			continue
		}
		head, tail := snippetMaxLines/2, snippetMaxLines/4
		writeNumbered(&sb, nl, b.a, b.a+head)
		fmt.Fprintf(&sb, "(%d lines not shown: read_file with offset %d shows them)\n", b.b-b.a-head-tail, b.a+head)
		writeNumbered(&sb, nl, b.b-tail, b.b)
		total += head + tail
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// writeNumbered writes lines [a, b) as read_file shows them.
func writeNumbered(sb *strings.Builder, nl textLines, a, b int) {
	for i := a; i < b; i++ {
		sb.WriteString(numberedLine(i+1, strings.TrimSuffix(strings.TrimSuffix(nl.line(i), "\n"), "\r")))
		sb.WriteByte('\n')
	}
}

// numberedLine is line n as read_file shows it: the number prefix, and
// a line longer than read_file's cap cut with its mark.
func numberedLine(n int, line string) string {
	line = strings.ToValidUTF8(line, "\uFFFD")
	if cut, ok := cutRunes(line, readMaxLineChars); ok {
		line = cut + " ... [line truncated]"
	}
	return numberPrefix(n) + line
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// minimalChanges splits change c into the smallest set of removals and
// additions, by the longest common subsequence of its lines: lines it
// left as they were are not shown as removed and added again.
func minimalChanges(ol, nl textLines, c lineChange) []lineChange {
	m, n := c.ob-c.oa, c.nb-c.na
	if m == 0 || n == 0 || (m+1)*(n+1) > lcsMaxCells {
		return []lineChange{c}
	}
	// lcs[i*(n+1)+j] is the common subsequence length of old lines i..
	// and new lines j.. of the change.
	lcs := make([]int32, (m+1)*(n+1))
	at := func(i, j int) int32 { return lcs[i*(n+1)+j] }
	for i := m - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			switch {
			case ol.line(c.oa+i) == nl.line(c.na+j):
				lcs[i*(n+1)+j] = at(i+1, j+1) + 1
			default:
				lcs[i*(n+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	if at(0, 0) == 0 {
		return []lineChange{c}
	}
	var out []lineChange
	open := false
	i, j := 0, 0
	for i < m || j < n {
		if i < m && j < n && ol.line(c.oa+i) == nl.line(c.na+j) && at(i, j) == at(i+1, j+1)+1 {
			open = false
			i, j = i+1, j+1
			continue
		}
		if !open {
			out = append(out, lineChange{oa: c.oa + i, ob: c.oa + i, na: c.na + j, nb: c.na + j})
			open = true
		}
		k := len(out) - 1
		if i < m && (j == n || at(i+1, j) >= at(i, j+1)) {
			i++
			out[k].ob = c.oa + i
		} else {
			j++
			out[k].nb = c.na + j
		}
	}
	return out
}

// declRE recognises a line that declares a function, method, class or
// the like in common languages; controlRE the statements that look like
// a C-style declaration but are not.
var (
	declRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:(?:export|default|pub(?:\([^)]*\))?|public|private|protected|internal|static|abstract|final|override|async|unsafe|extern|inline|virtual|open|suspend)\s+)*` +
			`(?:func|def|class|function|fn|impl|struct|interface|trait|enum|module|object|record|sub|procedure|namespace|type\s+\w+\s+(?:struct|interface))\b`)
	})
	cDeclRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:[\w:<>\[\],*&~]+\s+)+[*&]*[\w:~]+\s*\([^;=]*$`)
	})
	controlRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:if|else|for|while|switch|return|catch|case|do|throw|new|try|using|await|yield|goto|sizeof|go|defer|delete|print|assert|raise)\b`)
	})
)

// looksLikeDecl reports whether line looks like the start of a function,
// method, class or similar declaration.
func looksLikeDecl(line string) bool {
	if declRE().MatchString(line) {
		return true
	}
	return cDeclRE().MatchString(line) && !controlRE().MatchString(line)
}

// indentWidth measures a line's indentation, a tab counting four.
func indentWidth(line string) int {
	w := 0
	for _, r := range line {
		switch r {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return -1 // blank
}

// enclosingDecl finds the declaration a hunk starting at old line hs is
// in, for its header as git diff shows it: the nearest line above the hunk
// that looks like a declaration and is indented less than the first
// changed line.
func enclosingDecl(ol, nl textLines, hs int, c lineChange) string {
	limit := -1
	for k := c.oa; k < c.ob && limit < 0; k++ {
		limit = indentWidth(strings.TrimRight(ol.line(k), "\r\n"))
	}
	for k := c.na; k < c.nb && limit < 0; k++ {
		limit = indentWidth(strings.TrimRight(nl.line(k), "\r\n"))
	}
	if limit < 0 {
		limit = 1 << 30
	}
	for k := min(hs, ol.n()) - 1; k >= 0 && k >= hs-declMaxScan; k-- {
		line := strings.TrimRight(ol.line(k), " \t\r\n")
		w := indentWidth(line)
		if w < 0 || w >= limit || !looksLikeDecl(line) {
			continue
		}
		line = strings.ToValidUTF8(strings.TrimLeft(line, " \t"), "\uFFFD")
		if cut, ok := cutRunes(line, declMaxChars); ok {
			line = cut
		}
		return line
	}
	return ""
}
