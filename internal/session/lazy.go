package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/plyhq/ply/internal/llm"
)

// Loading a long session decodes only the entries its history still holds
// at the end: most were summarised away long before, and decoding every
// entry line was most of what --continue cost. An entry line is checked
// for its fixed shape (see Writer.Append) and kept as the message's JSON;
// compaction lines work on those references, and the entries left at the
// end are decoded then.

// histEntry is an entry of the history being replayed.
type histEntry struct {
	raw   []byte        // the message's JSON, not decoded yet; nil once msg holds it
	msg   llm.Message   // the message, when raw is nil
	edits []rawPartEdit // parts replaced since, in order, to apply after decoding raw
	line  int           // the line the entry came from, for warnings
	// dead marks an entry line of the right shape whose message does not
	// decode: it still counts, as it did for the writer, in the indexes
	// compaction lines refer to, but is left out of the history.
	dead bool
}

// rawOp is a compactOp as load reads it: the entries and parts it holds
// stay JSON until the history at the end turns out to hold them.
type rawOp struct {
	From    int             `json:"from"`
	N       int             `json:"n"`
	Parts   []rawPartEdit   `json:"parts"`
	Message json.RawMessage `json:"message"`
}

// rawPartEdit is a partEdit as load reads it.
type rawPartEdit struct {
	I      int             `json:"i"`
	Part   json.RawMessage `json:"part"`
	Output *splice         `json:"output"`
}

// entryHead is how every entry line Writer.Append writes starts, and the
// heads its message starts with: the roles load keeps.
var (
	entryHead = []byte(`{"type":"entry","message":`)
	userHead  = []byte(`{"role":"user"`)
	modelHead = []byte(`{"role":"model"`)
	seqField  = []byte(`,"seq":`)
)

// quickEntry keeps an entry line of the shape Writer.Append writes as its
// message's JSON, to be decoded if it is still in the history at the end,
// and reports whether it did; any other line is decoded whole.
func (t *Transcript) quickEntry(line []byte, n int) bool {
	if !entryShaped(line) {
		return false
	}
	msg := line[len(entryHead):]
	// The message holds no "seq" key, and a string holds no unescaped
	// quote: the last `,"seq":` is the record's.
	i := bytes.LastIndex(msg, seqField)
	if i < 0 {
		return false
	}
	var tail struct {
		Seq int64 `json:"seq"`
	}
	if json.Unmarshal(append([]byte{'{'}, msg[i+1:]...), &tail) != nil {
		return false
	}
	t.lastSeq = max(t.lastSeq, tail.Seq)
	t.hist = append(t.hist, histEntry{raw: t.keep(msg[:i]), line: n})
	return true
}

// arenaBlock is the size of the blocks keep copies entry lines into: the
// largest the allocator serves from its caches of small objects, which
// measured faster than larger blocks taken fresh from the heap.
const arenaBlock = 32 << 10

// keep returns a copy of b, which the line reader will overwrite. The
// copies share large blocks: one allocation per entry line cost more than
// the copying, and the blocks go once the history is decoded.
func (t *Transcript) keep(b []byte) []byte {
	if len(b) > arenaBlock/4 {
		return bytes.Clone(b)
	}
	if cap(t.arena)-len(t.arena) < len(b) {
		t.arena = make([]byte, 0, arenaBlock)
	}
	n := len(t.arena)
	t.arena = append(t.arena, b...)
	return t.arena[n:len(t.arena):len(t.arena)]
}

// entryShaped reports whether line starts as an entry line of a role load
// keeps, as Writer.Append writes them.
func entryShaped(line []byte) bool {
	msg, ok := bytes.CutPrefix(line, entryHead)
	return ok && (bytes.HasPrefix(msg, userHead) || bytes.HasPrefix(msg, modelHead))
}

// garbledEntry counts an entry line that does not decode, as the writer
// counted it, without putting it in the history.
func (t *Transcript) garbledEntry(line []byte, n int) {
	if entryShaped(line) {
		t.hist = append(t.hist, histEntry{dead: true, line: n})
	}
}

// appendEntry adds a decoded entry to the history being replayed.
func (t *Transcript) appendEntry(m llm.Message, line int) {
	t.hist = append(t.hist, histEntry{msg: m, line: line})
	if t.eager {
		t.History = append(t.History, m)
	}
}

// replaceHistory makes h the history being replayed.
func (t *Transcript) replaceHistory(h []llm.Message, line int) {
	t.hist = make([]histEntry, len(h))
	for i, m := range h {
		t.hist[i] = histEntry{msg: m, line: line}
	}
	if t.eager {
		t.History = h
	}
}

// applyCompaction replays a compaction line of changes onto the history
// being replayed. A line that does not fit that history (a line before it
// was lost) builds what it can, with a warning.
func (t *Transcript) applyCompaction(rec *record, line int) {
	if rec.Base != len(t.hist) {
		t.warn(line, fmt.Sprintf("compaction made for a history of %d entries applied to one of %d: a line before it was lost", rec.Base, len(t.hist)))
	}
	h, err := applyOps(t.hist, rec.Ops, line, t.spare)
	if err != nil {
		t.warn(line, fmt.Sprintf("compaction applied in part: %v", err))
	}
	// The old history's array is where the next line's is built: a line
	// a round would otherwise allocate the whole history each time.
	t.hist, t.spare = h, t.hist[:0]
	if t.eager {
		t.History, _ = t.materialize()
	}
}

// applyOps builds the history a compaction line's ops describe from old,
// the history replayed so far, in buf's array when it is large enough
// (buf must not share old's). It returns an error, and builds what it
// can, when an op points outside old.
func applyOps(old []histEntry, ops []rawOp, line int, buf []histEntry) ([]histEntry, error) {
	// Sized once: a line keeps most of the history in a range or two,
	// which appending would copy again at every doubling. Room is left
	// for the entries appended before the next line.
	n := 0
	for _, op := range ops {
		n += max(op.N, 1)
	}
	n = min(n, len(old)+len(ops))
	h := buf[:0]
	if cap(h) < n {
		h = make([]histEntry, 0, n+n/2+16)
	}
	var bad error
	for k, op := range ops {
		switch {
		case op.Message != nil:
			h = append(h, histEntry{raw: op.Message, line: line})
		case op.From < 0 || op.From >= len(old) || op.N < 0 || op.N > len(old)-op.From:
			bad = firstErr(bad, fmt.Errorf("op %d refers to entries %d+%d of %d", k, op.From, op.N, len(old)))
		case op.Parts != nil:
			e := old[op.From]
			if e.raw != nil || e.dead {
				// Applied once the entry is decoded, if it survives.
				e.edits = addEdits(e.edits, op.Parts)
			} else {
				e.msg.Parts = slices.Clone(e.msg.Parts)
				if err := replaceParts(&e.msg, op.Parts); err != nil {
					bad = firstErr(bad, fmt.Errorf("op %d: %w", k, err))
				}
			}
			h = append(h, e)
		default:
			h = append(h, old[op.From:op.From+op.N]...)
		}
	}
	return h, bad
}

// addEdits returns the edits old then add, leaving out those a later one
// makes moot: a part replaced whole no longer depends on what it held. A
// history summarised again and again rewrites its first entries in place
// at each summary, and their edits would otherwise pile up, each decoded
// at the end. old is not changed: other entries may share it.
func addEdits(old, add []rawPartEdit) []rawPartEdit {
	all := make([]rawPartEdit, 0, len(old)+len(add))
	all = append(append(all, old...), add...)
	out := all[:0]
	for k, e := range all {
		moot := false
		for _, later := range all[k+1:] {
			if later.I == e.I && later.Output == nil {
				moot = true
				break
			}
		}
		if !moot {
			out = append(out, e)
		}
	}
	return out
}

// replaceParts replaces parts of m, whose Parts the caller owns.
func replaceParts(m *llm.Message, edits []rawPartEdit) error {
	var bad error
	for _, e := range edits {
		if e.I < 0 || e.I >= len(m.Parts) {
			bad = firstErr(bad, fmt.Errorf("part %d replaced in an entry of %d", e.I, len(m.Parts)))
			continue
		}
		if e.Output != nil {
			bad = firstErr(bad, spliceOutput(&m.Parts[e.I], e.Output))
			continue
		}
		var p llm.Part
		if err := json.Unmarshal(e.Part, &p); err != nil {
			bad = firstErr(bad, fmt.Errorf("part %d: %w", e.I, err))
			continue
		}
		m.Parts[e.I] = p
	}
	return bad
}

// spliceOutput replaces the output of p's tool result as sp says, in a
// copy of the result, which other entries may share.
func spliceOutput(p *llm.Part, sp *splice) error {
	if p.Response == nil {
		return errors.New("an output spliced into a part that is not a tool result")
	}
	old := p.Response.Output
	if sp.Keep < 0 || sp.Tail < 0 || sp.Keep > len(old)-sp.Tail {
		return fmt.Errorf("an output spliced from %d+%d bytes of %d", sp.Keep, sp.Tail, len(old))
	}
	r := *p.Response
	r.Output = old[:sp.Keep] + sp.Text + old[len(old)-sp.Tail:]
	p.Response = &r
	return nil
}

// materialize returns the history being replayed as messages, decoding
// the entries kept as JSON. An entry that does not decode is left out,
// with a warning, as a garbled line is. When one was, mirror is the
// history with an empty message in its place, the history as the writer
// counts it (Writer.mirror); else mirror is nil.
func (t *Transcript) materialize() (h, mirror []llm.Message) {
	h = make([]llm.Message, 0, len(t.hist))
	for i := range t.hist {
		e := &t.hist[i]
		if e.raw != nil {
			var m llm.Message
			if err := json.Unmarshal(e.raw, &m); err != nil {
				t.warn(e.line, fmt.Sprintf("garbled line skipped: %v", err))
				e.dead = true
			} else if err := replaceParts(&m, e.edits); err != nil {
				t.warn(e.line, fmt.Sprintf("compaction applied in part: %v", err))
			}
			e.raw, e.msg, e.edits = nil, m, nil
		}
		if e.dead && mirror == nil {
			mirror = slices.Clone(h)
		}
		if mirror != nil {
			mirror = append(mirror, e.msg) // empty when dead
		}
		if !e.dead {
			h = append(h, e.msg)
		}
	}
	return h, mirror
}

// writerHistory is the history as a Writer appending to the file counts
// it.
func (t *Transcript) writerHistory() []llm.Message {
	if t.mirror != nil {
		return t.mirror
	}
	return t.History
}
