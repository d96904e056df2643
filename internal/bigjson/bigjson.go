// Package bigjson encodes values to JSON the way encoding/json does (HTML
// escaping off) while keeping their long strings out of the encoding: a
// long string stays a reference to the caller's text and is escaped
// straight into the writer when the value is written. Through
// encoding/json, whose buffer grows by doubling and is then copied, a 50 MB
// text costs two to four times its size on top of itself.
//
// It owns the escaping and the splicing only; which strings of a value are
// long enough to hold back is the caller's choice (Holder.Hold).
package bigjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"
)

// Min is the length from which callers hold a string back; shorter ones
// cost less through encoding/json than a placeholder does.
const Min = 1 << 20

// Holder hands out the placeholders that stand for long strings while a
// value is encoded. The zero value is ready to use; use a Holder for one
// value.
type Holder struct {
	nonce uint64
	texts []string
}

// Hold returns a placeholder for s, to be replaced by s, escaped, when
// the encoding is written. Strings must be held in the order in which
// their fields appear in the encoding.
func (h *Holder) Hold(s string) string {
	if h.nonce == 0 {
		h.nonce = rand.Uint64() | 1
	}
	h.texts = append(h.texts, s)
	return placeholder(len(h.texts)-1, h.nonce)
}

// Held reports whether any string was held.
func (h *Holder) Held() bool { return len(h.texts) > 0 }

// Pieces is an encoded value: bytes written as they are, between texts
// written escaped.
type Pieces []Piece

// Piece is one piece of an encoding: raw bytes, or a text to be written
// JSON-escaped (without its quotes).
type Piece struct {
	raw  []byte
	text string
}

// Encode encodes v, a value whose long strings are placeholders from h,
// after prefix (as encoding/json with HTML escaping off, without the
// trailing newline) and returns the pieces to write.
func (h *Holder) Encode(prefix string, v any) (Pieces, error) {
	var enc bytes.Buffer
	enc.WriteString(prefix)
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	var pieces Pieces
	for i, t := range h.texts {
		var mark bytes.Buffer
		mark.WriteByte('"')
		writeEscaped(&mark, placeholder(i, h.nonce))
		mark.WriteByte('"')
		j := bytes.Index(b, mark.Bytes())
		if j < 0 {
			return nil, fmt.Errorf("encoding a long text: its placeholder is missing")
		}
		pieces = append(pieces, Piece{raw: append(b[:j:j], '"')}, Piece{text: t})
		b = append([]byte{'"'}, b[j+mark.Len():]...)
	}
	return append(pieces, Piece{raw: b}), nil
}

// Tail is the raw bytes that end an encoding, for the caller to extend
// (with more fields, a newline) before it is written.
func (ps Pieces) Tail() *[]byte { return &ps[len(ps)-1].raw }

// Write writes the pieces to w, escaping the texts, and flushes w. Errors
// stay in w until the flush, which returns the first.
func (ps Pieces) Write(w *bufio.Writer) error {
	for _, p := range ps {
		if p.raw != nil {
			if _, err := w.Write(p.raw); err != nil {
				return err
			}
			continue
		}
		writeEscaped(w, p.text)
	}
	return w.Flush()
}

// WriteTo writes the pieces to w through a buffer of its own.
func (ps Pieces) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	err := ps.Write(bufio.NewWriterSize(cw, 64<<10))
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// placeholder stands for the i-th long text while the rest is encoded.
// The random nonce keeps a text that happens to hold the same bytes from
// being taken for it.
func placeholder(i int, nonce uint64) string {
	return "\x00ply-big-text-" + strconv.FormatUint(nonce, 36) + "-" + strconv.Itoa(i) + "\x00"
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

// writeEscaped writes s escaped, copying runs that need no escaping in
// one write each. Errors stay in w (bufio.Writer keeps the first).
func writeEscaped(w interface{ WriteString(string) (int, error) }, s string) {
	start := 0
	for i := 0; i < len(s); {
		e, n := escape(s, i)
		if e != "" {
			w.WriteString(s[start:i])
			w.WriteString(e)
			start = i + n
		}
		i += n
	}
	w.WriteString(s[start:])
}
