package session

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

// bigText is the size from which a message's text is not copied into its
// transcript line at all: the line keeps a reference to the text, which
// the history holds anyway, and the writer goroutine escapes it straight
// into the file. Through encoding/json, whose buffer grows by doubling and
// is then copied, a 50 MB reply cost 150 MB more.
var bigText = 1 << 20 // a variable for tests

// linePart is a piece of a line: bytes written as they are, or a text
// written JSON-escaped (without its quotes).
type linePart struct {
	raw  []byte
	text string
}

// encodeEntry returns prefix followed by m encoded as encodeTo would (no
// trailing newline), as parts: texts of bigText bytes or more stay
// references, to be escaped when written.
func encodeEntry(prefix string, m llm.Message) ([]linePart, error) {
	nonce := rand.Uint64()
	small, texts := withoutBigTexts(m, nonce)
	var enc bytes.Buffer
	enc.WriteString(prefix)
	if err := encodeTo(&enc, small); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	var parts []linePart
	for i, t := range texts {
		var mark bytes.Buffer
		mark.WriteByte('"')
		appendEscaped(&mark, placeholder(i, nonce))
		mark.WriteByte('"')
		j := bytes.Index(b, mark.Bytes())
		if j < 0 {
			return nil, fmt.Errorf("encoding a large text: its placeholder is missing")
		}
		parts = append(parts, linePart{raw: append(b[:j:j], '"')}, linePart{text: t})
		b = append([]byte{'"'}, b[j+mark.Len():]...)
	}
	return append(parts, linePart{raw: b}), nil
}

// writeParts writes the parts to w, escaping the texts.
func writeParts(w *bufio.Writer, parts []linePart) error {
	for _, p := range parts {
		if p.raw != nil {
			if _, err := w.Write(p.raw); err != nil {
				return err
			}
			continue
		}
		appendEscaped(w, p.text)
	}
	return w.Flush()
}

// placeholder stands for the i-th big text while the rest is encoded. The
// random nonce keeps a text that happens to hold the same bytes from being
// taken for it.
func placeholder(i int, nonce uint64) string {
	return "\x00ply-big-text-" + strconv.FormatUint(nonce, 36) + "-" + strconv.Itoa(i) + "\x00"
}

// withoutBigTexts returns a copy of m whose big texts are placeholders,
// and the texts in the order they appear in the encoding.
func withoutBigTexts(m llm.Message, nonce uint64) (llm.Message, []string) {
	var texts []string
	var parts []llm.Part
	for i, p := range m.Parts {
		big := len(p.Text) >= bigText || (p.Response != nil && len(p.Response.Output) >= bigText)
		if !big {
			continue
		}
		if parts == nil {
			parts = append([]llm.Part(nil), m.Parts...)
		}
		// Field order in the encoding: text comes before response.
		if len(p.Text) >= bigText {
			parts[i].Text = placeholder(len(texts), nonce)
			texts = append(texts, p.Text)
		}
		if p.Response != nil && len(p.Response.Output) >= bigText {
			r := *p.Response
			r.Output = placeholder(len(texts), nonce)
			texts = append(texts, p.Response.Output)
			parts[i].Response = &r
		}
	}
	if parts == nil {
		return m, nil
	}
	m.Parts = parts
	return m, texts
}

const hexDigits = "0123456789abcdef"

// escape returns how s's byte at i is written inside a JSON string, as
// encoding/json writes it with HTML escaping off, and how many bytes of s
// that covers; "" means the bytes are copied as they are.
func escape(s string, i int) (string, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		switch {
		case c == '"':
			return `\"`, 1
		case c == '\\':
			return `\\`, 1
		case c == '\n':
			return `\n`, 1
		case c == '\r':
			return `\r`, 1
		case c == '\t':
			return `\t`, 1
		case c == '\b':
			return `\b`, 1
		case c == '\f':
			return `\f`, 1
		case c < 0x20:
			return `\u00` + string(hexDigits[c>>4]) + string(hexDigits[c&0xf]), 1
		}
		return "", 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n == 1:
		return `\ufffd`, 1
	case r == '\u2028':
		return `\u2028`, n
	case r == '\u2029':
		return `\u2029`, n
	}
	return "", n
}

// appendEscaped writes s escaped, copying runs that need no escaping in
// one write each. Errors stay in w (bufio.Writer keeps the first).
func appendEscaped(buf interface{ WriteString(string) (int, error) }, s string) {
	start := 0
	for i := 0; i < len(s); {
		e, w := escape(s, i)
		if e != "" {
			buf.WriteString(s[start:i])
			buf.WriteString(e)
			start = i + w
		}
		i += w
	}
	buf.WriteString(s[start:])
}
