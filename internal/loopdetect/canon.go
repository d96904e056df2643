package loopdetect

import (
	"bytes"
	"encoding/json"
	"slices"
)

// canon builds the canonical form of tool arguments so that equal calls
// hash equal: object keys sorted, insignificant white space dropped,
// scalars and string literals kept byte for byte. It reuses its buffers,
// so a check allocates nothing once they have grown. Decoding into any and
// marshalling again would do the same at a dozen allocations per call.
type canon struct {
	src     []byte   // the arguments, trimmed
	out     []byte   // canonical values, built bottom up
	members []member // object members being sorted, as a stack
}

// member is one object member: its key literal in the source, and its
// canonical value in out.
type member struct {
	key        []byte
	start, end int
}

// form returns the canonical form of args, valid until the next call.
// Text that is not one JSON value is kept as given, trimmed: a model
// repeating malformed arguments is still repeating.
func (c *canon) form(args string) []byte {
	c.src = append(c.src[:0], args...)
	src := bytes.TrimSpace(c.src)
	if len(src) == 0 {
		return []byte("{}")
	}
	if !json.Valid(src) {
		return src
	}
	c.out = c.out[:0]
	c.value(src, 0)
	return c.out
}

// value appends the canonical form of the value at src[i:] to c.out and
// returns the index after it. src is valid JSON, so the parser can be
// simple: it never has to report an error.
func (c *canon) value(src []byte, i int) int {
	i = skipSpace(src, i)
	switch src[i] {
	case '{':
		return c.object(src, i)
	case '[':
		c.out = append(c.out, '[')
		i = skipSpace(src, i+1)
		for first := true; src[i] != ']'; first = false {
			if !first {
				c.out = append(c.out, ',')
				i = skipSpace(src, i+1) // past the comma
			}
			i = skipSpace(src, c.value(src, i))
		}
		c.out = append(c.out, ']')
		return i + 1
	case '"':
		end := stringEnd(src, i)
		c.out = append(c.out, src[i:end]...)
		return end
	default: // number, true, false, null
		end := i
		for end < len(src) && !isDelim(src[end]) {
			end++
		}
		c.out = append(c.out, src[i:end]...)
		return end
	}
}

// object canonicalises the object at src[i]: its values are built in
// c.out, then the members are written again in key order and moved down
// over the unsorted copies.
func (c *canon) object(src []byte, i int) int {
	mark, base := len(c.out), len(c.members)
	i = skipSpace(src, i+1)
	for src[i] != '}' {
		if src[i] == ',' {
			i = skipSpace(src, i+1)
		}
		kend := stringEnd(src, i)
		key := src[i:kend]
		i = skipSpace(src, kend) + 1 // past the colon
		start := len(c.out)
		i = skipSpace(src, c.value(src, i))
		c.members = append(c.members, member{key: key, start: start, end: len(c.out)})
	}
	ms := c.members[base:]
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	sorted := len(c.out)
	c.out = append(c.out, '{')
	for k, m := range ms {
		if k > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, m.key...)
		c.out = append(c.out, ':')
		c.out = append(c.out, c.out[m.start:m.end]...)
	}
	c.out = append(c.out, '}')
	n := copy(c.out[mark:], c.out[sorted:])
	c.out = c.out[:mark+n]
	c.members = c.members[:base]
	return i + 1
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string literal that starts at
// src[i].
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

func isDelim(b byte) bool {
	switch b {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
