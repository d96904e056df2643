package tools

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// grepMatcher finds matching lines. When the expression contains a
// literal every match must include (a required literal), candidate lines
// are found by searching whole buffers for it with bytes.Index, and the
// expression only confirms those lines; otherwise every line is matched.
type grepMatcher struct {
	re     *regexp.Regexp
	needle []byte // required literal; lower-case ASCII when fold
	fold   bool   // needle is searched case-insensitively
	exact  bool   // the expression is the needle: a hit needs no confirming
}

// grepFoldSafe marks the ASCII bytes whose Unicode case-fold orbit stays
// in ASCII. "k" and "s" fold to the Kelvin sign and the long s: a
// prefilter that lowers only ASCII would miss those, so needles avoid them.
var grepFoldSafe = func() (safe [utf8.RuneSelf]bool) {
	for b := range rune(utf8.RuneSelf) {
		safe[b] = true
		for r := unicode.SimpleFold(b); r != b; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf {
				safe[b] = false
			}
		}
	}
	return safe
}()

func newGrepMatcher(pattern string) (*grepMatcher, error) {
	// Compile the model's own text first so that the error quotes it.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	// Case-insensitive by default, as the models know this tool.
	expr := "(?i)" + pattern
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &grepMatcher{re: re}
	if tree, err := syntax.Parse(expr, syntax.Perl); err == nil {
		m.needle, m.fold, m.exact = grepNeedle(tree.Simplify())
		if bytes.IndexByte(m.needle, '\n') >= 0 {
			m.exact = false // never a whole line: let the expression say no
		}
	}
	return m, nil
}

// grepNeedle returns the longest literal that every match of re contains.
func grepNeedle(re *syntax.Regexp) (needle []byte, fold, exact bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return grepLiteralNeedle(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture:
		return grepNeedle(re.Sub[0])
	case syntax.OpPlus:
		needle, fold, _ = grepNeedle(re.Sub[0])
		return needle, fold, false
	case syntax.OpRepeat:
		if re.Min >= 1 {
			needle, fold, _ = grepNeedle(re.Sub[0])
		}
		return needle, fold, false
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if n, f, _ := grepNeedle(sub); len(n) > len(needle) {
				needle, fold = n, f
			}
		}
		return needle, fold, false
	}
	return nil, false, false
}

func grepLiteralNeedle(runes []rune, fold bool) (needle []byte, _, exact bool) {
	if !fold {
		return []byte(string(runes)), false, true
	}
	// The longest run of fold-safe ASCII, lowered.
	bestStart, bestLen, start := 0, 0, 0
	for i := 0; i <= len(runes); i++ {
		if i < len(runes) && runes[i] < utf8.RuneSelf && grepFoldSafe[runes[i]] {
			continue
		}
		if i-start > bestLen {
			bestStart, bestLen = start, i-start
		}
		start = i + 1
	}
	needle = make([]byte, bestLen)
	for i, r := range runes[bestStart : bestStart+bestLen] {
		needle[i] = grepLowerTable[r]
	}
	return needle, true, bestLen == len(runes)
}

var grepLowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()
