package loopdetect

import (
	"bytes"
	"fmt"
	"hash/maphash"
)

// Text guards compare sentences: a unit ends at a newline, or at . ! ?
// followed by space. Sentences are the natural grain of a model that
// repeats itself, and unlike fixed-size chunks they do not depend on how
// the stream happened to be cut.
const (
	contentWindow = 128 // sentences of visible text looked back on
	thoughtWindow = 64  // sentences of reasoning looked back on
	// Short units ("Done.", "```", "- [x]") repeat in honest text; only
	// longer ones count. Thoughts need more, since reasoning restates
	// short plans ("Let me check.") as a matter of course.
	minContentUnit = 24
	minThoughtUnit = 40
	// maxUnit bounds the pending sentence; a longer run without a
	// terminator is counted as one unit and started over.
	maxUnit = 1024
)

// text is the snapshotted state of one text guard: the hashes of the last
// sentences, as a ring.
type text struct {
	ring  [contentWindow]uint64
	n     int  // units ever pushed
	fence bool // inside a ``` code block, where repeated lines are normal
}

// CheckContent records a piece of visible reply text and reports a loop,
// or nil. Pieces may split sentences anywhere. Heuristic tier: nil when it
// is off.
func (d *Detector) CheckContent(s string) *Loop {
	if !d.opts.Heuristics {
		return nil
	}
	unit, n := d.feed(&d.st.content, &d.contentTail, s, contentWindow, minContentUnit, RepeatedContent)
	if n < RepeatedContent {
		return nil
	}
	return &Loop{Guard: GuardRepeatedContent, Count: n,
		Message: fmt.Sprintf("ply stopped: the model repeated the same text %d times: %q", n, clip(unit, 60))}
}

// CheckThought records a piece of reasoning text and reports a loop, or
// nil. Heuristic tier: nil when it is off.
func (d *Detector) CheckThought(s string) *Loop {
	if !d.opts.Heuristics {
		return nil
	}
	unit, n := d.feed(&d.st.thought, &d.thoughtTail, s, thoughtWindow, minThoughtUnit, RepeatedThoughts)
	if n < RepeatedThoughts {
		return nil
	}
	return &Loop{Guard: GuardRepeatedThoughts, Count: n,
		Message: fmt.Sprintf("ply stopped: the model had the same thought %d times: %q", n, clip(unit, 60))}
}

// feed appends s to the pending tail and counts every sentence it
// completes. It returns the first sentence that reached threshold and its
// count, or "" and the highest count seen.
func (d *Detector) feed(t *text, tail *[]byte, s string, window, minUnit, threshold int) (string, int) {
	// Scan from the last byte already held: its boundary may have waited
	// for the byte after it.
	from := max(len(*tail)-1, 0)
	*tail = append(*tail, s...)
	buf := *tail
	start, best, tripped := 0, 0, ""
	for i := from; i < len(buf) && tripped == ""; i++ {
		end, next := -1, 0
		switch buf[i] {
		case '\n':
			end, next = i, i+1 // the newline belongs to neither unit
		case '.', '!', '?':
			if i+1 < len(buf) && (buf[i+1] == ' ' || buf[i+1] == '\n' || buf[i+1] == '\t') {
				end, next = i+1, i+1
			}
		}
		if end < 0 && i+1-start >= maxUnit {
			end, next = i+1, i+1
		}
		if end < 0 {
			continue
		}
		u := bytes.TrimSpace(buf[start:end])
		if n := d.unit(t, u, window, minUnit); n > best {
			best = n
			if n >= threshold {
				tripped = string(u)
			}
		}
		start = next
		i = next - 1
	}
	// Keep the unfinished sentence, copied down so that the buffer does
	// not grow with the stream.
	*tail = append(buf[:0], buf[start:]...)
	return tripped, best
}

// unit counts one trimmed sentence and returns how many times it occurs in
// the window, itself included; 0 for units that do not count.
func (d *Detector) unit(t *text, u []byte, window, minUnit int) int {
	if bytes.HasPrefix(u, []byte("```")) {
		t.fence = !t.fence
		return 0
	}
	if t.fence || len(u) < minUnit {
		return 0
	}
	h := d.hashText(u)
	t.ring[t.n%window] = h
	t.n++
	same := 0
	for i := range min(t.n, window) {
		if t.ring[i] == h {
			same++
		}
	}
	return same
}

// hashText hashes u with runs of white space collapsed, so that re-wrapped
// repeats still match, without building the collapsed copy.
func (d *Detector) hashText(u []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(d.seed)
	space := false
	for _, c := range u {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			space = true
			continue
		}
		if space {
			h.WriteByte(' ')
			space = false
		}
		h.WriteByte(c)
	}
	return h.Sum64()
}
