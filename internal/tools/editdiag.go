package tools

import (
	"fmt"
	"strconv"
	"strings"
)

// editNoMatchError is errEditNoMatch with a pointer to the region of the
// file that comes closest to old_string, so that the model can fix its
// old_string instead of reading the file again.
type editNoMatchError struct{ hint string }

func (e *editNoMatchError) Error() string { return errEditNoMatch.Error() }
func (e *editNoMatchError) Unwrap() error { return errEditNoMatch }

const (
	// diagMaxOldLines bounds the passes that try every line of
	// old_string left out: beyond it only the cheap passes run.
	diagMaxOldLines = 100
	// diagMaxWork bounds the line comparisons of the closest-region
	// search, so that a huge file with a common line stays quick.
	diagMaxWork = 2_000_000
	// diagShownLines is how many of the file's lines the hint quotes.
	diagShownLines = 12
)

// diagLines is a text split into lines, each with its comparison key:
// white space collapsed, so that indentation and spacing do not count.
type diagLines struct {
	raw  []string // without "\n"; a "\r" is kept
	keys []string
}

func newDiagLines(s string, dropFinalEmpty bool) diagLines {
	raw := strings.Split(s, "\n")
	if dropFinalEmpty && len(raw) > 1 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	d := diagLines{raw: raw, keys: make([]string, len(raw))}
	for i, l := range raw {
		d.keys[i] = strings.Join(strings.Fields(l), " ")
	}
	return d
}

// diagnoseNoMatch explains why old matches nowhere in body: the region
// that differs only in white space or line endings, or by one line, or
// the one that shares most lines with it.
func diagnoseNoMatch(body, old string) string {
	file, want := newDiagLines(body, true), newDiagLines(old, true)
	k := len(want.keys)
	index := map[string][]int{}
	for i, key := range file.keys {
		if key != "" {
			index[key] = append(index[key], i)
		}
	}
	equal := func(s int, keys []string) bool {
		if s < 0 || s+len(keys) > len(file.keys) {
			return false
		}
		for i, key := range keys {
			if file.keys[s+i] != key {
				return false
			}
		}
		return true
	}
	starts := func(keys []string, shift int) []int {
		for a, key := range keys {
			if key != "" {
				var out []int
				for _, pos := range index[key] {
					out = append(out, pos-a-shift)
				}
				return out
			}
		}
		return nil
	}
	for _, s := range starts(want.keys, 0) {
		if equal(s, want.keys) {
			return fmt.Sprintf("The closest match is lines %d-%d, which differ from old_string only in %s. %s",
				s+1, s+k, whitespaceDifference(file.raw[s:s+k], want.raw), quoteRegion(file, s, s+k))
		}
	}
	if k > 2 && k <= diagMaxOldLines {
		for i := 1; i < k-1; i++ { // a wrong first or last line is a changed line, found below
			sub := append(append([]string(nil), want.keys[:i]...), want.keys[i+1:]...)
			for _, s := range starts(sub, 0) {
				if equal(s, sub) {
					return fmt.Sprintf("Lines %d-%d of the file match old_string except that line %d of old_string (%q) is not in the file. %s",
						s+1, s+k-1, i+1, strings.TrimRight(want.raw[i], "\r"), quoteRegion(file, s, s+k-1))
				}
			}
		}
	}
	if k <= diagMaxOldLines {
		for _, shift := range []int{0, 1} {
			for _, s := range starts(want.keys, shift) {
				if s < 0 || s+k+1 > len(file.keys) {
					continue
				}
				for j := 1; j < k; j++ { // an extra first or last line is no difference
					if equal(s, want.keys[:j]) && equal(s+j+1, want.keys[j:]) {
						return fmt.Sprintf("Lines %d-%d of the file match old_string except that line %d of the file (%q) is missing from old_string. %s",
							s+1, s+k+1, s+j+1, strings.TrimRight(file.raw[s+j], "\r"), quoteRegion(file, s, s+k+1))
					}
				}
			}
		}
	}
	return closestRegion(file, want, index)
}

// closestRegion finds the window of the file that shares the most lines
// with old_string, at the same offsets.
func closestRegion(file, want diagLines, index map[string][]int) string {
	k := len(want.keys)
	best, bestScore, work := -1, 0, 0
	seen := map[int]bool{}
	for i, key := range want.keys {
		for _, pos := range index[key] {
			s := pos - i
			if s < 0 || s+k > len(file.keys) || seen[s] || work > diagMaxWork {
				continue
			}
			seen[s] = true
			score := 0
			for j := range k {
				if file.keys[s+j] == want.keys[j] && want.keys[j] != "" {
					score++
				}
			}
			work += k
			if score > bestScore || (score == bestScore && s < best) {
				best, bestScore = s, score
			}
		}
	}
	if best < 0 || bestScore*2 < k {
		return "Nothing in the file is close to old_string: the file may have changed since you read it. Use read_file to see its current content."
	}
	var differ []string
	for j := range k {
		if file.keys[best+j] != want.keys[j] {
			differ = append(differ, strconv.Itoa(best+j+1))
		}
	}
	return fmt.Sprintf("The closest region is lines %d-%d, where %s %s from old_string. %s",
		best+1, best+k, pluralOf(len(differ), "line", "lines"), joinList(differ)+" "+pluralOf(len(differ), "differs", "differ"), quoteRegion(file, best, best+k))
}

// whitespaceDifference names how lines of the file and of old_string
// that are equal but for white space differ.
func whitespaceDifference(file, old []string) string {
	for i := range file {
		f, o := strings.TrimRight(file[i], "\r"), strings.TrimRight(old[i], "\r")
		fi, oi := leadingSpace(f), leadingSpace(o)
		switch {
		case fi == oi:
		case strings.Contains(fi, "\t") && !strings.Contains(oi, "\t") && oi != "":
			return "indentation: the file indents with tabs where old_string has spaces"
		case strings.Contains(oi, "\t") && !strings.Contains(fi, "\t") && fi != "":
			return "indentation: the file indents with spaces where old_string has tabs"
		default:
			return fmt.Sprintf("indentation: the file's line starts with %s where old_string's starts with %s", describeSpace(fi), describeSpace(oi))
		}
	}
	for i := range file {
		if strings.TrimRight(file[i], "\r") != strings.TrimRight(old[i], "\r") {
			return "spacing within a line (" + strconv.Quote(strings.TrimRight(file[i], "\r")) + " in the file)"
		}
	}
	for i := range file {
		fc, oc := strings.HasSuffix(file[i], "\r"), strings.HasSuffix(old[i], "\r")
		if fc != oc && i < len(file)-1 {
			return "line endings: the file mixes CRLF and LF line endings, and old_string's do not match them; replace fewer lines at a time"
		}
	}
	return "white space"
}

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// describeSpace says "2 tabs", "4 spaces" or "no indentation".
func describeSpace(s string) string {
	tabs, spaces := strings.Count(s, "\t"), strings.Count(s, " ")
	var parts []string
	if tabs > 0 {
		parts = append(parts, strconv.Itoa(tabs)+" "+pluralOf(tabs, "tab", "tabs"))
	}
	if spaces > 0 {
		parts = append(parts, strconv.Itoa(spaces)+" "+pluralOf(spaces, "space", "spaces"))
	}
	if len(parts) == 0 {
		return "no indentation"
	}
	return strings.Join(parts, " and ")
}

// quoteRegion shows lines [from, to) of the file as read_file numbers
// them, at most diagShownLines of them.
func quoteRegion(file diagLines, from, to int) string {
	var b strings.Builder
	b.WriteString("The file has there:\n")
	for i := from; i < to && i < from+diagShownLines; i++ {
		b.WriteString(numberPrefix(i + 1))
		b.WriteString(strings.TrimRight(file.raw[i], "\r"))
		b.WriteByte('\n')
	}
	if to-from > diagShownLines {
		fmt.Fprintf(&b, "(%d more lines)\n", to-from-diagShownLines)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// joinList writes "1", "1 and 3" or "1, 3 and 5".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// matchLines returns the line number at which each span starts.
func matchLines(body string, spans []editSpan) []string {
	out := make([]string, 0, len(spans))
	line, prev := 1, 0
	for _, s := range spans {
		line += strings.Count(body[prev:s.start], "\n")
		prev = s.start
		out = append(out, strconv.Itoa(line))
	}
	return out
}
