package tools

import (
	"bytes"
	"math"
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

	// How scan finds the needle; see grepFind*.
	find grepFind
	// For grepFindRare: the needle's rarest byte, at needle[rareOff], in
	// both its cases (the same byte twice when it has no case).
	rareOff        int
	rareLo, rareUp byte
}

// grepFind is how a needle is looked for in a buffer.
type grepFind uint8

const (
	// grepFindRaw: bytes.Index on the raw buffer. For a case-sensitive
	// needle, or a folded one without letters, whose case cannot differ.
	grepFindRaw grepFind = iota
	// grepFindRare: bytes.IndexByte on the raw buffer for the needle's
	// rarest byte (both cases of it for a letter), each candidate
	// confirmed by an ASCII case-insensitive compare of its window.
	grepFindRare
	// grepFindLower: lower the whole buffer, then bytes.Index. The
	// general path, and the fallback when the rare byte is not rare.
	grepFindLower
)

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

// newGrepMatcher compiles pattern; fold makes the whole expression
// case-insensitive, as (?i) would.
func newGrepMatcher(pattern string, fold bool) (*grepMatcher, error) {
	// Compile the model's own text first so that the error quotes it.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	expr := pattern
	if fold {
		expr = "(?i)" + pattern
	}
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
	m.planFind()
	return m, nil
}

// planFind chooses how scan looks for the needle.
func (m *grepMatcher) planFind() {
	m.find = grepFindRaw
	if !m.fold {
		return
	}
	letters := false
	for _, b := range m.needle {
		if b >= utf8.RuneSelf {
			// Not made by grepLiteralNeedle, which keeps to ASCII; the
			// rare-byte search knows only ASCII case, so lower as ever.
			m.find = grepFindLower
			return
		}
		if b >= 'a' && b <= 'z' {
			letters = true
		}
	}
	if !letters {
		return // lowering would change nothing
	}
	m.find = grepFindRare
	best := math.MaxInt
	for i, b := range m.needle {
		cost := int(grepByteFreq[b])
		if b >= 'a' && b <= 'z' {
			// Both cases are candidates, found in two passes.
			cost += int(grepByteFreq[b-'a'+'A']) + grepPassCost
		}
		if cost < best {
			best, m.rareOff, m.rareLo, m.rareUp = cost, i, b, b
			if b >= 'a' && b <= 'z' {
				m.rareUp = b - 'a' + 'A'
			}
		}
	}
}

// grepByteFreq is how often each ASCII byte occurs in source code, in
// units of 1/100,000, counted over the Go distribution's and some
// modules' sources. Only the order matters much: it picks the byte of
// a needle that gives the fewest false candidates.
var grepByteFreq = [256]uint16{
	' ': 15539, 'e': 5859, 't': 4929, 'r': 4189, '\t': 4073, 'n': 3856, 'i': 3530, '\n': 3441,
	'a': 3331, 's': 3152, 'o': 2932, 'l': 2184, 'c': 1985, ',': 1700, 'd': 1689, 'u': 1662,
	'f': 1591, 'p': 1491, '.': 1438, '(': 1293, ')': 1292, '/': 1266, 'm': 1207, '0': 1184,
	'g': 1134, '"': 1058, 'h': 1037, '=': 1013, 'S': 869, 'T': 839, 'x': 768, 'E': 765,
	'y': 758, 'b': 755, '_': 725, '{': 675, '}': 673, ':': 623, '1': 611, 'I': 574,
	'A': 538, 'R': 522, 'O': 511, 'C': 511, 'v': 511, 'P': 485, '2': 461, 'k': 448,
	'w': 436, 'D': 419, 'N': 408, 'L': 378, 'F': 369, '4': 363, 'M': 345, '6': 316,
	'3': 293, 'B': 291, '[': 265, ']': 263, '-': 251, '8': 225, '*': 221, 'G': 214,
	'V': 199, 'H': 191, 'U': 180, '5': 177, '!': 138, '7': 132, 'Y': 131, '9': 130,
	';': 125, '&': 119, 'W': 117, '+': 116, '\\': 113, 'X': 112, '%': 111, 'z': 108,
	'\'': 91, '<': 91, 'q': 86, '|': 82, 'K': 80, '`': 76, '>': 72, 'j': 65,
	'$': 48, 'Q': 39, '#': 30, 'J': 26, 'Z': 21, '?': 9, '^': 8, '~': 4, '@': 4,
}

// grepPassCost is what a second bytes.IndexByte pass over a buffer costs,
// in grepByteFreq units: a pass is far cheaper per byte than confirming
// a candidate, about as dear as a byte with 1% of candidates.
const grepPassCost = 1000

// grepFinder finds a matcher's needle in one region, in order of
// position, keeping what it learnt between calls.
type grepFinder struct {
	m      *grepMatcher
	region []byte
	// lowered, when not nil, is region lowered from position loweredAt on.
	lowered   []byte
	loweredAt int
	// For grepFindRare: the next positions of rareLo and rareUp at or
	// after where they were last looked for, len(region) when none.
	lo, up int
	misses int // candidates the compare turned down
}

func newGrepFinder(m *grepMatcher, w *grepWorker, region []byte) grepFinder {
	f := grepFinder{m: m, region: region, lo: -1, up: -1}
	if m.find == grepFindLower {
		f.lower(w, 0)
	}
	return f
}

// lower switches f to searching a lowered copy of region[at:].
func (f *grepFinder) lower(w *grepWorker, at int) {
	if cap(w.lower) < len(f.region) {
		w.lower = make([]byte, max(len(w.buf), len(f.region)))
	}
	hay := w.lower[:len(f.region)]
	for i, b := range f.region[at:] {
		hay[at+i] = grepLowerTable[b]
	}
	f.lowered, f.loweredAt = hay, at
}

// index returns the position of the first occurrence of the needle in
// region that starts at or after from, folding ASCII case when the
// matcher does, or -1. Successive calls must not decrease from.
func (f *grepFinder) index(w *grepWorker, from int) int {
	m := f.m
	hay := f.region
	if f.lowered != nil {
		hay = f.lowered
	} else if m.find == grepFindRare {
		return f.indexRare(w, from)
	}
	if i := bytes.Index(hay[from:], m.needle); i >= 0 {
		return from + i
	}
	return -1
}

func (f *grepFinder) indexRare(w *grepWorker, from int) int {
	m, hay, n, off := f.m, f.region, len(f.m.needle), f.m.rareOff
	last := len(hay) - n + off // the last position the rare byte can be at
	for q := from + off; q <= last; {
		if f.lo < q {
			f.lo = grepNextByte(hay, q, m.rareLo)
		}
		p := f.lo
		if m.rareUp != m.rareLo {
			if f.up < q {
				f.up = grepNextByte(hay, q, m.rareUp)
			}
			p = min(p, f.up)
		}
		if p > last {
			break
		}
		start := p - off
		if grepFoldEqual(hay[start:start+n], m.needle) {
			return start
		}
		q = p + 1
		// Too many false candidates, each dearer than lowering a byte:
		// the text is not what grepByteFreq expects, so lower the rest.
		if f.misses++; f.misses >= 32 && f.misses*16 > p {
			f.lower(w, start+1)
			return f.index(w, start+1)
		}
	}
	return -1
}

// grepNextByte is the position of the first c in hay[q:], or len(hay).
func grepNextByte(hay []byte, q int, c byte) int {
	if i := bytes.IndexByte(hay[q:], c); i >= 0 {
		return q + i
	}
	return len(hay)
}

// grepFoldEqual reports whether grepLowerTable maps b onto the lower-case
// needle, byte for byte: ASCII case folding only, as the lowered search.
func grepFoldEqual(b, needle []byte) bool {
	b = b[:len(needle)]
	for i, c := range needle {
		if grepLowerTable[b[i]] != c {
			return false
		}
	}
	return true
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
