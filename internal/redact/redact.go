// Package redact keeps the secrets ply holds out of what it prints: it
// replaces every known secret value (an API key, a token read from the
// environment) with "[redacted]" in strings and in streams written to a
// terminal, a pipe or a log file.
//
// It knows only values, never where they came from; the caller collects
// them. Each value is also looked for in the forms it is commonly printed
// in (encodings.go): quoted, in upper or lower case, percent-encoded, in
// hex, and in base64 alone or inside a longer base64 stream. A stream Writer holds back a tail that could be the start of a
// secret until the next write shows whether it is, so that a secret split
// across two writes is still caught.
package redact

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Mark replaces every secret.
const Mark = "[redacted]"

// Redactor replaces a fixed set of secrets. A nil *Redactor replaces
// nothing. It is safe for concurrent use.
type Redactor struct {
	secrets []string // longest first, so that the longest match wins
	// rep replaces them: a matcher, or a strings.Replacer when a secret
	// is shorter than the matcher's two bytes.
	rep interface{ Replace(string) string }
	// byFirst lists the secrets by their first byte, for held.
	byFirst [256][]string
}

// New returns a Redactor for secrets. Values shorter than minLen are
// ignored: replacing "1" or "true" would mangle ordinary text. Each secret
// is also looked for in its encoded forms (see variants), each of those as
// it appears inside a JSON or Go quoted string, since stream-json and the
// log quote what they print. The forms are computed here, once.
func New(secrets []string, minLen int) *Redactor {
	var all []string
	seen := map[string]bool{}
	for _, s := range secrets {
		if len(s) < minLen || strings.TrimSpace(s) == "" {
			continue
		}
		for _, v := range variants(s) {
			for _, q := range []string{v, jsonInner(v), goInner(v)} {
				if len(q) >= minLen && !seen[q] {
					seen[q] = true
					all = append(all, q)
				}
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b string) int { return len(b) - len(a) })
	r := &Redactor{secrets: all}
	for _, s := range all {
		r.byFirst[s[0]] = append(r.byFirst[s[0]], s)
	}
	if len(all[len(all)-1]) >= 2 {
		r.rep = newMatcher(all)
		return r
	}
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Mark)
	}
	r.rep = strings.NewReplacer(pairs...)
	return r
}

func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func goInner(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	return r.rep.Replace(s)
}

// held returns how many bytes at the end of b could be the beginning of a
// secret: the longest such tail.
func (r *Redactor) held(b string) int {
	longest := len(r.secrets[0])
	for i := max(0, len(b)-longest+1); i < len(b); i++ {
		tail := b[i:]
		for _, s := range r.byFirst[tail[0]] {
			if len(s) > len(tail) && strings.HasPrefix(s, tail) {
				return len(b) - i
			}
		}
	}
	return 0
}

// Writer redacts what is written through it. Call Flush when done: it
// writes what was held back.
type Writer struct {
	r *Redactor
	w io.Writer

	mu      sync.Mutex
	pending []byte
}

// Writer returns a Writer to w. With a nil Redactor it still works,
// passing everything through.
func (r *Redactor) Writer(w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write writes p redacted, except for a tail that may be the beginning of
// a secret, which waits for the next Write or Flush. It reports len(p)
// when the underlying write succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	if w.r == nil {
		return w.w.Write(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := w.r.String(string(append(w.pending, p...)))
	// Hold back a tail that may be the beginning of a secret: written now,
	// the rest of it written later would complete it.
	keep := w.r.held(buf)
	out := buf[:len(buf)-keep]
	w.pending = []byte(buf[len(buf)-keep:])
	if len(out) > 0 {
		if _, err := io.WriteString(w.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held back: a tail that turned out to be no secret.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	p := w.pending
	w.pending = nil
	_, err := w.w.Write(p)
	return err
}
