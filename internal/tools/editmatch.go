package tools

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Errors of the edit matcher; the edit tool maps each to an error type and
// a hint for the model.
var (
	errEditNoChange = errors.New("old_string and new_string are identical: the edit would change nothing")
	errEditEmptyOld = errors.New("old_string is empty but the file is not empty")
	errEditNoMatch  = errors.New("old_string was not found")
)

// editCountError says old_string matched more than once without
// replace_all.
type editCountError struct {
	count int
	lines []string // the line numbers the matches start at
}

func (e *editCountError) Error() string {
	return fmt.Sprintf("old_string matches %d places, expected exactly 1", e.count)
}

// editSpan is one replacement: bytes [start, end) of the content (after any
// BOM) became bytes [newStart, newEnd) of the result (after the BOM).
type editSpan struct{ start, end, newStart, newEnd int }

// editOutcome is a successful edit.
type editOutcome struct {
	content  string     // the whole new file, BOM included
	count    int        // replacements made
	tolerant bool       // the normalised match was used
	spans    []editSpan // in file order, not overlapping
	bom      string     // the BOM kept in front of both versions
}

// applyEdit replaces oldStr by newStr in content and returns the new
// content and the number of replacements. It is the pure core of the edit
// tool:
//
//   - an exact match is tried first; if there is none, a tolerant match
//     that treats curly quotes, dashes and non-breaking spaces as their
//     ASCII forms and ignores trailing whitespace on each line; the
//     replacement then covers the original bytes of the file, not the
//     normalised ones;
//   - a file whose first line ends in CRLF is treated as a CRLF file: "\n"
//     in oldStr and newStr becomes "\r\n", so the model can write plain
//     newlines;
//   - a UTF-8 BOM is kept and never matched;
//   - a match never splits a "\r\n" pair;
//   - newStr is literal text: "$1" stays "$1";
//   - an empty oldStr is only valid for empty content, which becomes
//     newStr (creating a file).
//
// More than one match without replaceAll is an *editCountError.
func applyEdit(content, oldStr, newStr string, replaceAll bool) (string, int, error) {
	o, err := matchEdit(content, oldStr, newStr, replaceAll)
	if err != nil {
		return "", 0, err
	}
	return o.content, o.count, nil
}

// matchEdit is applyEdit with the detail the edit tool needs for its diff.
func matchEdit(content, oldStr, newStr string, replaceAll bool) (*editOutcome, error) {
	if oldStr == newStr {
		return nil, errEditNoChange
	}
	body, bom := content, ""
	if strings.HasPrefix(body, utf8BOM) {
		// The model never sees the BOM (read_file drops it), so it is
		// kept aside and a BOM the model sends anyway is ignored.
		body, bom = body[len(utf8BOM):], utf8BOM
		oldStr = strings.TrimPrefix(oldStr, utf8BOM)
		newStr = strings.TrimPrefix(newStr, utf8BOM)
	}
	if usesCRLF(body) {
		oldStr, newStr = toCRLF(oldStr), toCRLF(newStr)
	}
	if oldStr == "" {
		if body != "" {
			return nil, errEditEmptyOld
		}
		return &editOutcome{
			content: bom + newStr, count: 1, bom: bom,
			spans: []editSpan{{0, 0, 0, len(newStr)}},
		}, nil
	}

	find, tolerant := findExact, false
	spans := find(body, oldStr, false, 0)
	if len(spans) == 0 {
		find, tolerant = findTolerant, true
		spans = find(body, oldStr, false, 0)
	}
	if len(spans) == 1 && !replaceAll {
		if both := find(body, oldStr, true, 2); len(both) > 1 {
			// An occurrence overlapping the one found makes the edit
			// just as ambiguous: in "aaa", the model's "aa" could mean
			// either.
			return nil, &editCountError{count: 2, lines: matchLines(body, both)}
		}
	}
	switch {
	case len(spans) == 0:
		if o, ok := stripLineNumbers(oldStr); ok {
			// Pasted from read_file with its "     3\t" prefixes: try
			// again without them, in new_string too where every line
			// has one.
			n, _ := stripLineNumbers(newStr)
			if n == "" && newStr != "" {
				n = newStr
			}
			return matchEdit(content, o, n, replaceAll)
		}
		return nil, &editNoMatchError{hint: diagnoseNoMatch(body, oldStr)}
	case len(spans) > 1 && !replaceAll:
		return nil, &editCountError{count: len(spans), lines: matchLines(body, spans)}
	}

	// Size from the spans, not len(oldStr): a tolerant span can be
	// longer or shorter than oldStr.
	size := len(bom) + len(body)
	for _, s := range spans {
		size += len(newStr) - (s.end - s.start)
	}
	var b strings.Builder
	b.Grow(max(size, 0))
	b.WriteString(bom)
	prev := 0
	for i := range spans {
		s := &spans[i]
		b.WriteString(body[prev:s.start])
		s.newStart = b.Len() - len(bom)
		b.WriteString(newStr)
		s.newEnd = b.Len() - len(bom)
		prev = s.end
	}
	b.WriteString(body[prev:])
	out := b.String()
	if out == content {
		// Possible after normalisation: "x\n" vs "x\r\n" in a CRLF file,
		// or a tolerant match whose replacement is the file's own text.
		return nil, errEditNoChange
	}
	return &editOutcome{content: out, count: len(spans), tolerant: tolerant, spans: spans, bom: bom}, nil
}

// usesCRLF reports whether the first line of s ends in "\r\n".
func usesCRLF(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i > 0 && s[i-1] == '\r'
}

// toCRLF turns every line ending of s into "\r\n", leaving ones that
// already are alone.
func toCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// splitsCRLF reports whether a cut at byte i of s falls between '\r' and
// '\n'.
func splitsCRLF(s string, i int) bool {
	return i > 0 && i < len(s) && s[i-1] == '\r' && s[i] == '\n'
}

// findExact returns the occurrences of pat in s, left to right, skipping
// those that would split a line ending; at most limit of them unless limit
// is 0. Unless overlapping, each search resumes after the previous match,
// as for replacing.
func findExact(s, pat string, overlapping bool, limit int) []editSpan {
	var spans []editSpan
	for from := 0; from <= len(s)-len(pat); {
		i := strings.Index(s[from:], pat)
		if i < 0 {
			break
		}
		start := from + i
		end := start + len(pat)
		if splitsCRLF(s, start) || splitsCRLF(s, end) {
			from = start + 1
			continue
		}
		spans = append(spans, editSpan{start: start, end: end})
		if len(spans) == limit {
			break
		}
		from = end
		if overlapping {
			from = start + 1
		}
	}
	return spans
}

// findTolerant matches the normalised pat against the normalised s and
// maps each match back to its original bytes of s; overlapping and limit
// as for findExact.
func findTolerant(s, pat string, overlapping bool, limit int) []editSpan {
	np, _, trail := normalizeForMatch(pat, false)
	if np == "" {
		// Whitespace alone would match everywhere.
		return nil
	}
	ns, starts, _ := normalizeForMatch(s, true)
	var spans []editSpan
	for from := 0; from <= len(ns)-len(np); {
		i := strings.Index(ns[from:], np)
		if i < 0 {
			break
		}
		nStart := from + i
		nEnd := nStart + len(np)
		start := int(starts[nStart])
		end := origEnd(s, int(starts[nEnd-1]))
		end, ok := extendTrail(s, end, trail)
		if !ok || splitsCRLF(s, start) || splitsCRLF(s, end) {
			from = nStart + 1
			continue
		}
		spans = append(spans, editSpan{start: start, end: end})
		if len(spans) == limit {
			break
		}
		if overlapping {
			from = nStart + 1
			continue
		}
		// The extension may have eaten normalised bytes; resume after
		// everything the span covers so spans never overlap.
		for nEnd < len(ns) && int(starts[nEnd]) < end {
			nEnd++
		}
		from = nEnd
	}
	return spans
}

// origEnd returns the end in s of the character whose normalised form
// starts at byte i: a mapped rune (a curly quote) spans its whole
// encoding, any other byte was copied one to one.
func origEnd(s string, i int) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	if _, mapped := matchFold(r); mapped {
		return i + size
	}
	return i + 1
}

// extendTrail handles a pattern whose last line ended in whitespace that
// normalisation dropped (trail, in runes). The match must be followed by
// whitespace or a line end, or "foo " would match inside "foobar"; the
// span then takes that whitespace: all of it when it runs to the line end
// (it was dropped from the file's normalised text too), else as much as
// the pattern had.
func extendTrail(s string, end, trail int) (int, bool) {
	if trail == 0 {
		return end, true
	}
	i, n := end, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isHSpace(r) {
			break
		}
		i += size
		n++
	}
	if atLineEnd(s, i) {
		return i, true
	}
	if n == 0 {
		return end, false
	}
	i = end
	for k := 0; k < trail && k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i, true
}

func atLineEnd(s string, i int) bool {
	return i == len(s) || s[i] == '\n' || strings.HasPrefix(s[i:], "\r\n")
}

// matchFold maps the characters the tolerant match treats as equal to
// their ASCII form. Models type straight quotes and hyphens where files
// have typographic ones, and the reverse.
func matchFold(r rune) (byte, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B': // ‘ ’ ‚ ‛
		return '\'', true
	case '\u201C', '\u201D', '\u201E', '\u201F': // “ ” „ ‟
		return '"', true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212': // ‐ ‑ ‒ – — ― −
		return '-', true
	case '\u00A0', '\u2007', '\u202F': // no-break spaces
		return ' ', true
	}
	return 0, false
}

func isHSpace(r rune) bool {
	if b, ok := matchFold(r); ok {
		return b == ' '
	}
	return r == ' ' || r == '\t'
}

// normalizeForMatch folds s for the tolerant match: matchFold on every
// rune and horizontal whitespace dropped before a line end or the end of
// s. With index, starts[i] is the byte of s that normalised byte i came
// from. trail is how many whitespace runes were dropped at the very end,
// which the caller needs to place the end of a match.
func normalizeForMatch(s string, index bool) (norm string, starts []int32, trail int) {
	var b strings.Builder
	b.Grow(len(s))
	if index {
		starts = make([]int32, 0, len(s))
	}
	// pending is the whitespace run seen but not yet emitted: it is
	// written only if something other than a line end follows.
	pendingFrom, pendingRunes := -1, 0
	emit := func(c byte, at int) {
		b.WriteByte(c)
		if index {
			starts = append(starts, int32(at))
		}
	}
	flush := func(to int) {
		for i := pendingFrom; i < to; {
			r, size := utf8.DecodeRuneInString(s[i:])
			if c, ok := matchFold(r); ok {
				emit(c, i)
			} else {
				emit(s[i], i)
			}
			i += size
		}
		pendingFrom, pendingRunes = -1, 0
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isHSpace(r) {
			if pendingFrom < 0 {
				pendingFrom = i
			}
			pendingRunes++
			i += size
			continue
		}
		if pendingFrom >= 0 {
			if atLineEnd(s, i) {
				pendingFrom, pendingRunes = -1, 0
			} else {
				flush(i)
			}
		}
		if c, ok := matchFold(r); ok {
			emit(c, i)
		} else {
			for k := 0; k < size; k++ {
				emit(s[i+k], i+k)
			}
		}
		i += size
	}
	if pendingFrom >= 0 {
		trail = pendingRunes
	}
	return b.String(), starts, trail
}

// stripLineNumbers removes read_file's cat -n prefix (spaces, digits, a
// tab) from every line of s; ok is false when some line lacks it.
func stripLineNumbers(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, l := range lines {
		if l == "" {
			continue
		}
		rest := strings.TrimLeft(l, " ")
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits == 0 || len(rest) == digits || rest[digits] != '\t' {
			return "", false
		}
		b.WriteString(rest[digits+1:])
	}
	return b.String(), true
}
