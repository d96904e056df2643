package gitstate

import (
	"strconv"
	"strings"
)

// quotePath quotes a path as git status does with core.quotePath on: in
// double quotes with C escapes when it holds a control character, a
// double quote, a backslash or a byte past ASCII, and in double quotes
// alone when it holds a space.
func quotePath(p string) string {
	needs := false
	for i := 0; i < len(p); i++ {
		if mustQuote(p[i]) {
			needs = true
			break
		}
	}
	if !needs {
		if strings.IndexByte(p, ' ') >= 0 {
			return `"` + p + `"`
		}
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !mustQuote(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('\\')
		switch c {
		case '\a':
			b.WriteByte('a')
		case '\b':
			b.WriteByte('b')
		case '\t':
			b.WriteByte('t')
		case '\n':
			b.WriteByte('n')
		case '\v':
			b.WriteByte('v')
		case '\f':
			b.WriteByte('f')
		case '\r':
			b.WriteByte('r')
		case '"', '\\':
			b.WriteByte(c)
		default:
			o := strconv.FormatUint(uint64(c), 8)
			b.WriteString(strings.Repeat("0", 3-len(o)) + o)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func mustQuote(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f }

// relativePath is git's relative_path for the slash-separated paths of
// a repository: in as seen from prefix, a directory ending in a slash
// ("" for the top).
func relativePath(in, prefix string) string {
	if in == "" {
		return "./"
	}
	if prefix == "" {
		return in
	}
	i, j := 0, 0
	inOff, prefixOff := 0, 0
	for i < len(prefix) && j < len(in) && prefix[i] == in[j] {
		if prefix[i] == '/' {
			for i < len(prefix) && prefix[i] == '/' {
				i++
			}
			for j < len(in) && in[j] == '/' {
				j++
			}
			prefixOff, inOff = i, j
		} else {
			i++
			j++
		}
	}
	switch {
	case i >= len(prefix) && prefixOff < len(prefix):
		switch {
		case j >= len(in):
			inOff = len(in)
		case in[j] == '/':
			for j < len(in) && in[j] == '/' {
				j++
			}
			inOff = j
		default:
			i = prefixOff
		}
	case j >= len(in) && inOff < len(in):
		if i < len(prefix) && prefix[i] == '/' {
			for i < len(prefix) && prefix[i] == '/' {
				i++
			}
			inOff = len(in)
		}
	}
	in = in[inOff:]
	if i >= len(prefix) {
		if in == "" {
			return "./"
		}
		return in
	}
	var b strings.Builder
	for i < len(prefix) {
		if prefix[i] == '/' {
			b.WriteString("../")
			for i < len(prefix) && prefix[i] == '/' {
				i++
			}
			continue
		}
		i++
	}
	if prefix[len(prefix)-1] != '/' {
		b.WriteString("../")
	}
	b.WriteString(in)
	return b.String()
}
