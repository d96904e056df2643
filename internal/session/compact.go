package session

import (
	"bytes"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

// A compaction record says how the history changed, not what it became:
// near the context limit the chat cuts a tool result or summarises at
// nearly every round, and a record holding the whole history each time
// made a transcript grow with the square of its length.
//
//	{"type":"compaction","time":"…","base":N,"ops":[…]}
//
// base is the length of the history the record applies to, the history
// as replaying the file so far rebuilt it; the ops build the new history
// from it, in order:
//
//	{"from":i,"n":k}                   the k entries from index i, as they are
//	{"from":i,"parts":[{"i":j,…}]}     entry i with the parts at the given
//	                                   indexes replaced: "part" holds the new
//	                                   part, or "output" its tool result's
//	                                   output as a splice of the one before
//	                                   ({"keep":p,"text":"…","tail":s}: the
//	                                   first p bytes, the text, the last s)
//	{"message":{…}}                    a new entry, written out in full
//
// A cut tool result is thus the note in its middle, a summary its own
// entries plus one range. An older record holds the whole history in "history" instead of
// "ops"; both are read.

// compactOp is one step of a compaction record.
type compactOp struct {
	From    int          `json:"from"`
	N       int          `json:"n,omitempty"`
	Parts   []partEdit   `json:"parts,omitempty"`
	Message *llm.Message `json:"message,omitempty"`
}

// partEdit replaces the part at index I of an entry: with Part, or, when
// only a tool result's output changed, its output with Output.
type partEdit struct {
	I      int       `json:"i"`
	Part   *llm.Part `json:"part,omitempty"`
	Output *splice   `json:"output,omitempty"`
}

// splice is a tool result's output made from the one before it: its first
// Keep bytes, Text, and its last Tail bytes. A cut result is its head and
// tail around a note, and so is a result cut further.
type splice struct {
	Keep int    `json:"keep"`
	Text string `json:"text"`
	Tail int    `json:"tail"`
}

// minSplice is the least a splice must keep of the output before it to be
// written instead of the whole part.
const minSplice = 64

// spliceOf returns b's output as a splice of a's when the two parts differ
// only in their tool result's output and the splice keeps enough of it.
// Both outputs must be valid UTF-8: JSON would change other bytes, and the
// offsets with them.
func spliceOf(a, b *llm.Part) (*splice, bool) {
	if a.Response == nil || b.Response == nil {
		return nil, false
	}
	old, out := a.Response.Output, b.Response.Output
	same := *a
	r := *a.Response
	r.Output = out
	same.Response = &r
	if !samePart(&same, b) || !utf8.ValidString(old) || !utf8.ValidString(out) {
		return nil, false
	}
	p := 0
	for p < len(old) && p < len(out) && old[p] == out[p] {
		p++
	}
	for p > 0 && p < len(out) && !utf8.RuneStart(out[p]) {
		p--
	}
	s := 0
	for s < len(old)-p && s < len(out)-p && old[len(old)-1-s] == out[len(out)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(out[len(out)-s]) {
		s--
	}
	if p+s < minSplice {
		return nil, false
	}
	return &splice{Keep: p, Text: out[p : len(out)-s], Tail: s}, true
}

// AppendCompaction records that the history is now history (compression
// replaced or cut parts of it): on load the history rebuilt so far gives
// way to it. Entries appended after it extend history. The caller passes
// the complete history as it is now.
//
// The line holds only what changed against the history the file rebuilds
// at this point, which the writer keeps (see Writer.mirror).
func (w *Writer) AppendCompaction(history []llm.Message) {
	if w.isClosed() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	base := len(w.mirror)
	line, err := encodeLine(struct {
		Type string      `json:"type"`
		Time time.Time   `json:"time"`
		Base int         `json:"base"`
		Ops  []compactOp `json:"ops"`
	}{typeCompaction, time.Now().UTC(), base, diffHistory(w.mirror, history)})
	if err != nil {
		w.err = firstErr(w.err, fmt.Errorf("session: %s: encode compaction: %w", w.path, err))
		return
	}
	w.mirror = slices.Clone(history)
	w.enqueueLocked(item{line: line})
}

// appendReplacing appends the record v, which holds history in full, and
// makes history what the file rebuilds from here on.
func (w *Writer) appendReplacing(what string, v any, history []llm.Message) {
	w.appendRecordAnd(what, v, func() { w.mirror = slices.Clone(history) })
}

// firstErr returns the first of a and b that is not nil.
func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// mirrorAppend adds an entry to the history the file rebuilds, as load
// does: an entry of no known role is skipped there, so here too. w.mu is
// held.
func (w *Writer) mirrorAppendLocked(m llm.Message) {
	if m.Role == llm.RoleUser || m.Role == llm.RoleModel {
		w.mirror = append(w.mirror, m)
	}
}

// setMirror sets the history the file rebuilds, for a writer on a file
// loaded as h.
func (w *Writer) setMirror(h []llm.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.mirror = slices.Clone(h)
}

// diffHistory returns the ops that build h from old. Each entry of h is
// looked for at the index after the previous one found, and else by the
// identity of its parts (entries that were not changed share them with
// the history they were appended from); one found equal is referenced,
// one found with other parts is patched, and any other is written out.
func diffHistory(old, h []llm.Message) []compactOp {
	ops := []compactOp{}
	var byParts map[*llm.Part]int
	next := 0
	for i := range h {
		m := &h[i]
		j := next
		if j >= len(old) || !sameShape(&old[j], m) {
			if byParts == nil {
				byParts = partsIndex(old)
			}
			j = -1
			if len(m.Parts) > 0 {
				if k, ok := byParts[&m.Parts[0]]; ok && sameShape(&old[k], m) {
					j = k
				}
			}
		}
		if j < 0 {
			ops = append(ops, compactOp{Message: m})
			continue
		}
		next = j + 1
		edits := partEdits(&old[j], m)
		switch {
		case edits == nil:
			if n := len(ops); n > 0 && ops[n-1].N > 0 && ops[n-1].From+ops[n-1].N == j {
				ops[n-1].N++
			} else {
				ops = append(ops, compactOp{From: j, N: 1})
			}
		default:
			ops = append(ops, compactOp{From: j, Parts: edits})
		}
	}
	return ops
}

// partsIndex maps the first part of each entry of h to its index.
func partsIndex(h []llm.Message) map[*llm.Part]int {
	idx := make(map[*llm.Part]int, len(h))
	for i := range h {
		if len(h[i].Parts) > 0 {
			idx[&h[i].Parts[0]] = i
		}
	}
	return idx
}

// sameShape reports whether b can be written as a (possibly patched) a:
// everything but the parts' contents is equal.
func sameShape(a, b *llm.Message) bool {
	return a.Role == b.Role && a.FinishReason == b.FinishReason && len(a.Parts) == len(b.Parts) &&
		(a.Usage == b.Usage || a.Usage != nil && b.Usage != nil && *a.Usage == *b.Usage)
}

// partEdits returns the parts of b that differ from a's, or nil when none
// does. a and b have the same shape.
func partEdits(a, b *llm.Message) []partEdit {
	if len(a.Parts) == 0 || &a.Parts[0] == &b.Parts[0] {
		return nil
	}
	var edits []partEdit
	for i := range b.Parts {
		if samePart(&a.Parts[i], &b.Parts[i]) {
			continue
		}
		if sp, ok := spliceOf(&a.Parts[i], &b.Parts[i]); ok {
			edits = append(edits, partEdit{I: i, Output: sp})
		} else {
			edits = append(edits, partEdit{I: i, Part: &b.Parts[i]})
		}
	}
	return edits
}

func samePart(a, b *llm.Part) bool {
	if a.Text != b.Text || a.Thought != b.Thought || a.Signature != b.Signature {
		return false
	}
	switch {
	case a.Call != b.Call && (a.Call == nil || b.Call == nil || *a.Call != *b.Call):
		return false
	case a.Media != b.Media && (a.Media == nil || b.Media == nil || !sameMedia(a.Media, b.Media)):
		return false
	}
	x, y := a.Response, b.Response
	if x == y {
		return true
	}
	if x == nil || y == nil || x.ID != y.ID || x.Name != y.Name || x.Output != y.Output ||
		x.IsError != y.IsError || len(x.Media) != len(y.Media) {
		return false
	}
	for i := range x.Media {
		if !sameMedia(&x.Media[i], &y.Media[i]) {
			return false
		}
	}
	return true
}

func sameMedia(a, b *llm.Media) bool {
	return a.MIMEType == b.MIMEType && bytes.Equal(a.Data, b.Data) && (a.Data == nil) == (b.Data == nil)
}
