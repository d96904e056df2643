package tui

import "strings"

// sgrAround returns the escape sequences a style puts before and after a
// text, so that a hot path can style without calling Render.
func sgrAround(render func(...string) string) (on, off string) {
	r := render("\x00")
	on, off, _ = strings.Cut(r, "\x00")
	return on, off
}

// links renders the links of one line: [text](address) as the text and,
// when it differs, the address in parentheses (a terminal cannot follow a
// hidden address), and <address> as the address. It scans by hand: the
// open line of a streamed reply is rendered again on every chunk.
func (md *markdown) links(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); i++ {
		var text, url string
		var end int
		switch s[i] {
		case '[':
			text, url, end = inlineLink(s, i)
		case '<':
			url, end = autoLink(s, i)
			text = url
		default:
			continue
		}
		if end == 0 {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 64)
		}
		b.WriteString(s[done:i])
		b.WriteString(md.linkOn)
		if text == url || "mailto:"+text == url {
			b.WriteString(url)
			b.WriteString(md.linkOff)
		} else {
			b.WriteString(text)
			b.WriteString(md.linkOff)
			b.WriteString(" (")
			b.WriteString(url)
			b.WriteByte(')')
		}
		done, i = end, end-1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// inlineLink reads [text](address) at s[i]; end is the index after it, 0
// when there is none: text without "]" or a newline, an address without
// spaces or parentheses.
func inlineLink(s string, i int) (text, url string, end int) {
	close := strings.IndexAny(s[i+1:], "]\n")
	if close <= 0 || s[i+1+close] != ']' {
		return "", "", 0
	}
	text = s[i+1 : i+1+close]
	rest := s[i+1+close+1:]
	if !strings.HasPrefix(rest, "(") {
		return "", "", 0
	}
	stop := strings.IndexAny(rest[1:], "() \t\n")
	if stop <= 0 || rest[1+stop] != ')' {
		return "", "", 0
	}
	url = rest[1 : 1+stop]
	return text, url, len(s) - len(rest) + 1 + stop + 1
}

// autoLink reads <address> at s[i] for http, https and mailto addresses.
func autoLink(s string, i int) (url string, end int) {
	rest := s[i+1:]
	if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") && !strings.HasPrefix(rest, "mailto:") {
		return "", 0
	}
	stop := strings.IndexAny(rest, "> \t\n<")
	if stop <= 0 || rest[stop] != '>' {
		return "", 0
	}
	return rest[:stop], i + 1 + stop + 1
}
