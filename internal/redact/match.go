package redact

import "strings"

// matcher finds secrets in text faster than a strings.Replacer of as many
// patterns: a bit set of the first two bytes of every secret is checked
// at each position, and only where it hits are the secrets starting with
// those bytes compared. Ordinary text hits seldom, so most lines cost one
// table lookup a byte and come back unchanged, without copying.
type matcher struct {
	bits  [1 << 16 / 64]uint64
	cands map[uint16][]string // longest first
}

// newMatcher returns a matcher for secrets, sorted longest first, each
// two bytes long at least.
func newMatcher(secrets []string) *matcher {
	m := &matcher{cands: map[uint16][]string{}}
	for _, s := range secrets {
		p := pair(s, 0)
		m.bits[p>>6] |= 1 << (p & 63)
		m.cands[p] = append(m.cands[p], s)
	}
	return m
}

func pair(s string, i int) uint16 { return uint16(s[i])<<8 | uint16(s[i+1]) }

// match returns the length of the longest secret at s[i:], 0 for none.
func (m *matcher) match(s string, i int) int {
	p := pair(s, i)
	if m.bits[p>>6]&(1<<(p&63)) == 0 {
		return 0
	}
	for _, c := range m.cands[p] {
		if strings.HasPrefix(s[i:], c) {
			return len(c)
		}
	}
	return 0
}

// Replace returns s with every secret replaced by Mark, leftmost first
// and, at one position, the longest: what strings.Replacer does with the
// secrets given longest first.
func (m *matcher) Replace(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i+1 < len(s); {
		n := m.match(s, i)
		if n == 0 {
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:i])
		b.WriteString(Mark)
		i += n
		done = i
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}
