package redact

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// variants returns s and the forms it is commonly printed in:
//
//   - in upper and in lower case (ASCII letters only);
//   - percent-encoded as a query value, a path segment, or with every
//     byte but letters, digits and -._~ escaped, with upper- and
//     lower-case hex digits;
//   - in hex, lower and upper case;
//   - in base64, standard and URL alphabets, as the characters that
//     depend on s alone when s starts at any of the three byte
//     alignments within a longer stream (the "user:key" of basic
//     authentication): padded or not, alone or embedded, those
//     characters are there. Up to two characters on each side, which mix
//     s's bits with its neighbours', stay.
func variants(s string) []string {
	out := []string{s, asciiCase(s, 'A', 'Z'), asciiCase(s, 'a', 'z')}
	for _, esc := range []string{queryEscape(s), pathEscape(s), percentEscape(s)} {
		out = append(out, esc, lowerHexEscapes(esc))
	}
	h := hex.EncodeToString([]byte(s))
	out = append(out, h, strings.ToUpper(h))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for offset := range 3 {
			out = append(out, base64Core(enc, s, offset))
		}
	}
	return out
}

// base64Core returns the characters of the base64 of a stream holding s
// at byte offset within a group of three that depend on s's bytes alone.
func base64Core(enc *base64.Encoding, s string, offset int) string {
	b := make([]byte, offset, offset+len(s))
	e := enc.EncodeToString(append(b, s...))
	start := (8*offset + 5) / 6      // the first character with no bit of the bytes before
	end := (8*offset + 8*len(s)) / 6 // the characters with no bit of the bytes after
	if end <= start {
		return ""
	}
	return e[start:end]
}

// asciiCase switches the case of the letters of s between lo and hi:
// asciiCase(s, 'A', 'Z') is s in lower case.
func asciiCase(s string, lo, hi byte) string {
	b := []byte(s)
	for i, c := range b {
		if lo <= c && c <= hi {
			b[i] = c ^ 0x20
		}
	}
	return string(b)
}

const hexUpper = "0123456789ABCDEF"

// queryEscape is url.QueryEscape: space as "+", and the rest of the
// bytes but letters, digits and -_.~ escaped.
func queryEscape(s string) string { return escape(s, func(c byte) bool { return false }, true) }

// pathEscape is url.PathEscape: a path segment keeps $&+,:;=@ too.
func pathEscape(s string) string {
	return escape(s, func(c byte) bool { return strings.IndexByte("$&+,:;=@", c) >= 0 }, false)
}

// percentEscape escapes every byte but letters, digits and -._~ (RFC
// 3986's unreserved characters), space as %20.
func percentEscape(s string) string { return escape(s, func(c byte) bool { return false }, false) }

func escape(s string, keep func(byte) bool, plus bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', keep(c):
			b.WriteByte(c)
		case c == ' ' && plus:
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hexUpper[c>>4])
			b.WriteByte(hexUpper[c&15])
		}
	}
	return b.String()
}

// lowerHexEscapes writes the hex digits of s's %XX escapes in lower case.
func lowerHexEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1] = lowerHex(b[i+1])
			b[i+2] = lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}
