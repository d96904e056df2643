package ignore

import "strings"

// A pattern is matched one path component at a time: each slash-separated
// segment of the pattern matches exactly one component, except a "**"
// segment, which matches any number of them. That is equivalent to git's
// wildmatch with WM_PATHNAME (where "*", "?" and classes never match "/"
// and only a "**" bounded by slashes crosses them), and it lets the common
// shapes (a plain name, "*.ext", "prefix*") skip the general matcher.

type segKind uint8

const (
	segLiteral  segKind = iota // no wildcard: the component equals lit
	segAny                     // "*": any component
	segPrefix                  // "lit*"
	segSuffix                  // "*lit"
	segGlob                    // anything else: matchTokens
	segGlobstar                // "**": zero or more components (one or more at the end)
)

type segment struct {
	kind segKind
	lit  string
	toks []token
}

type tokKind uint8

const (
	tokByte  tokKind = iota // one literal byte
	tokAny                  // "?": one byte
	tokStar                 // "*": any run of bytes
	tokClass                // "[...]": one byte in set
)

type token struct {
	kind tokKind
	b    byte
	set  *byteSet
}

// byteSet is a set of bytes. Git's wildmatch compares bytes, not runes, so
// a class is fully described by 256 bits.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

func (s *segment) match(name string) bool {
	switch s.kind {
	case segLiteral:
		return name == s.lit
	case segAny, segGlobstar:
		return true
	case segPrefix:
		return strings.HasPrefix(name, s.lit)
	case segSuffix:
		return strings.HasSuffix(name, s.lit)
	}
	return matchTokens(s.toks, name)
}

// matchSegments matches the pattern segments against every component of
// path. Only the most recent "**" is ever revisited on a mismatch: as with
// "*" in a flat glob, letting a later "**" absorb more components covers
// every alternative an earlier one could offer, so the cost stays
// O(segments × components).
func matchSegments(segs []segment, path string) bool {
	if path == "" {
		return false
	}
	end := len(path) // pi > end means every component is consumed
	si, pi := 0, 0
	starSi, starPi := -1, 0
	for {
		if si < len(segs) && segs[si].kind == segGlobstar {
			if si < len(segs)-1 {
				starSi, starPi = si, pi
				si++
				continue
			}
			// A trailing "/**" matches everything inside, so at least one
			// component must be left for it.
			if pi <= end {
				return true
			}
		} else if si < len(segs) && pi <= end {
			j := nextSlash(path, pi)
			if segs[si].match(path[pi:j]) {
				si++
				pi = j + 1
				continue
			}
		} else if si == len(segs) && pi > end {
			return true
		}
		if starSi < 0 || starPi > end {
			return false
		}
		starPi = nextSlash(path, starPi) + 1
		si, pi = starSi+1, starPi
	}
}

func nextSlash(path string, from int) int {
	if i := strings.IndexByte(path[from:], '/'); i >= 0 {
		return from + i
	}
	return len(path)
}

// matchTokens matches one component against a flat glob, backtracking only
// to the most recent star (linear for all practical patterns, never
// exponential).
func matchTokens(toks []token, s string) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for si < len(s) || ti < len(toks) {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case tokStar:
				starTi, starSi = ti, si
				ti++
				continue
			case tokByte:
				if si < len(s) && s[si] == t.b {
					ti, si = ti+1, si+1
					continue
				}
			case tokAny:
				if si < len(s) {
					ti, si = ti+1, si+1
					continue
				}
			case tokClass:
				if si < len(s) && t.set.has(s[si]) {
					ti, si = ti+1, si+1
					continue
				}
			}
		}
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		starSi++
		ti, si = starTi+1, starSi
	}
	return true
}

// compileSegment compiles one slash-free piece of a pattern. ok is false
// when git would never match the pattern (an unterminated class, an unknown
// [:name:] class, a dangling backslash).
func compileSegment(p string) (seg segment, ok bool) {
	if len(p) >= 2 && strings.Trim(p, "*") == "" {
		return segment{kind: segGlobstar}, true
	}
	var toks []token
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 >= len(p) {
				return seg, false
			}
			i++
			toks = append(toks, token{kind: tokByte, b: p[i]})
		case '*':
			// A run of stars not forming a whole segment is one star.
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
		case '?':
			toks = append(toks, token{kind: tokAny})
		case '[':
			set, end, good := parseClass(p, i)
			if !good {
				return seg, false
			}
			toks = append(toks, token{kind: tokClass, set: &set})
			i = end - 1
		default:
			toks = append(toks, token{kind: tokByte, b: c})
		}
	}
	return classify(toks), true
}

// classify picks the cheapest matcher that is exact for toks.
func classify(toks []token) segment {
	stars, others := 0, 0
	for _, t := range toks {
		switch t.kind {
		case tokStar:
			stars++
		case tokByte:
		default:
			others++
		}
	}
	lit := func(ts []token) string {
		b := make([]byte, len(ts))
		for i, t := range ts {
			b[i] = t.b
		}
		return string(b)
	}
	switch {
	case others > 0 || stars > 1:
	case stars == 0:
		return segment{kind: segLiteral, lit: lit(toks)}
	case len(toks) == 1:
		return segment{kind: segAny}
	case toks[0].kind == tokStar:
		return segment{kind: segSuffix, lit: lit(toks[1:])}
	case toks[len(toks)-1].kind == tokStar:
		return segment{kind: segPrefix, lit: lit(toks[:len(toks)-1])}
	}
	return segment{kind: segGlob, toks: toks}
}

// parseClass parses the bracket expression starting at p[i] == '[' with
// git's wildmatch rules: "!" or "^" negates, a "]" right after the opening
// (or after the negation) is a member, "a-z" is a range unless the "-" is
// first or last, a backslash escapes, "[:alpha:]" and friends name ASCII
// classes. end is the index after the closing "]". ok is false when the
// class is unterminated or names an unknown class; git then matches
// nothing.
func parseClass(p string, i int) (set byteSet, end int, ok bool) {
	j := i + 1
	negate := false
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		negate = true
		j++
	}
	prev := -1 // the last single member, which may start a range
	for first := true; ; first = false {
		if j >= len(p) {
			return set, 0, false
		}
		c := p[j]
		switch {
		case c == ']' && !first:
			end = j + 1
			if negate {
				for k := range set {
					set[k] = ^set[k]
				}
			}
			// Under WM_PATHNAME no class matches the separator.
			set[0] &^= 1 << '/'
			return set, end, true
		case c == '\\':
			if j+1 >= len(p) {
				return set, 0, false
			}
			set.add(p[j+1])
			prev = int(p[j+1])
			j += 2
		case c == '-' && prev >= 0 && j+1 < len(p) && p[j+1] != ']':
			j++
			hi := p[j]
			if hi == '\\' {
				if j+1 >= len(p) {
					return set, 0, false
				}
				j++
				hi = p[j]
			}
			for b := prev; b <= int(hi); b++ {
				set.add(byte(b))
			}
			prev = -1
			j++
		case c == '[' && j+1 < len(p) && p[j+1] == ':':
			k := strings.IndexByte(p[j+2:], ']')
			if k < 0 {
				return set, 0, false
			}
			k += j + 2 // index of the "]"
			if k-1 < j+2 || p[k-1] != ':' {
				// Not "[:name:]": the "[" is an ordinary member.
				set.add('[')
				prev = '['
				j++
				continue
			}
			if !addNamedClass(&set, p[j+2:k-1]) {
				return set, 0, false
			}
			prev = -1
			j = k + 1
		default:
			set.add(c)
			prev = int(c)
			j++
		}
	}
}

// addNamedClass adds the members of a POSIX class in the C locale, which is
// what git uses.
func addNamedClass(set *byteSet, name string) bool {
	var in func(b byte) bool
	switch name {
	case "alnum":
		in = func(b byte) bool { return isAlpha(b) || isDigit(b) }
	case "alpha":
		in = isAlpha
	case "blank":
		in = func(b byte) bool { return b == ' ' || b == '\t' }
	case "cntrl":
		in = func(b byte) bool { return b < 0x20 || b == 0x7f }
	case "digit":
		in = isDigit
	case "graph":
		in = func(b byte) bool { return b > 0x20 && b < 0x7f }
	case "lower":
		in = func(b byte) bool { return b >= 'a' && b <= 'z' }
	case "print":
		in = func(b byte) bool { return b >= 0x20 && b < 0x7f }
	case "punct":
		in = func(b byte) bool { return b > 0x20 && b < 0x7f && !isAlpha(b) && !isDigit(b) }
	case "space":
		in = func(b byte) bool { return b == ' ' || (b >= '\t' && b <= '\r') }
	case "upper":
		in = func(b byte) bool { return b >= 'A' && b <= 'Z' }
	case "xdigit":
		in = func(b byte) bool { return isDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'f') }
	default:
		return false
	}
	for b := 0; b < 0x80; b++ {
		if in(byte(b)) {
			set.add(byte(b))
		}
	}
	return true
}

func isAlpha(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }
