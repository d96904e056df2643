// Package wirecache keeps the wire encoding of each history message from
// one request to the next, so that a provider encodes only what changed:
// the history grows by a message or two a round and is otherwise edited
// rarely (a result cut, a summary), while encoding all of it every round
// costs time in proportion to its length.
//
// A message is reused only when it equals, field by field, the message it
// was encoded from; comparing costs next to nothing when the strings are
// the same ones, as they are for history that has not changed. It owns no
// wire format: the provider hands it the function that encodes a message.
package wirecache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"

	"github.com/plyhq/ply/internal/llm"
)

// maxCached is the largest encoding kept: a huge message (an answer of
// many megabytes) is encoded again rather than held twice.
const maxCached = 1 << 20

// Cache holds the encodings of the messages of the last request (of
// whatever type T the provider keeps: the JSON bytes, or blocks it still
// arranges). The zero value is ready to use; it is safe for concurrent
// use.
type Cache[T any] struct {
	mu sync.Mutex
	// prev are the entries of the last request, by pointer: an entry is
	// made once, when its message is encoded, and only its pointer is
	// copied from one request's list to the next.
	prev []*entry[T]
	// spare is the slice before prev, reused for the next call's.
	spare []*entry[T]
}

type entry[T any] struct {
	snap snapshot
	enc  T
	// key is the array of the message's parts, by which find looks.
	key *llm.Part
}

// Encode returns the encodings of msgs, in order. Each is the one an
// earlier call made of an equal message, or encode's (i is the message's
// index in msgs; size is the encoding's size in bytes).
//
// A message is looked for at its own index in the last request, shifted
// by as many places as the message before it was: a history that grew, or
// whose front was replaced by a summary, costs one comparison a message.
// Where that fails, the last request is searched for the message's parts.
func (c *Cache[T]) Encode(msgs []llm.Message, encode func(i int, m *llm.Message) (enc T, size int, err error)) ([]T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]T, len(msgs))
	next := c.spare[:0]
	shift := 0
	for i := range msgs {
		m := &msgs[i]
		j := i + shift
		if j < 0 || j >= len(c.prev) || !c.prev[j].snap.equal(m) {
			j = c.find(m)
			if j >= 0 {
				shift = j - i
			}
		}
		var e *entry[T]
		if j >= 0 {
			e = c.prev[j]
		} else {
			enc, size, err := encode(i, m)
			if err != nil {
				clear(next)
				c.spare = next[:0]
				return nil, err
			}
			e = &entry[T]{enc: enc, snap: snapshot{never: true}, key: unsafe.SliceData(m.Parts)}
			if size <= maxCached {
				e.snap = snap(m)
			}
		}
		next = append(next, e)
		out[i] = e.enc
	}
	// The old entries go: what they hold (the strings of messages no
	// longer in history) must not be kept alive.
	clear(c.prev)
	c.prev, c.spare = next, c.prev[:0]
	return out, nil
}

// find returns the index of the entry of the last request that holds m,
// found by its parts' array, or -1.
func (c *Cache[T]) find(m *llm.Message) int {
	k := unsafe.SliceData(m.Parts)
	if k == nil {
		return -1
	}
	for j := range c.prev {
		if c.prev[j].key == k && c.prev[j].snap.equal(m) {
			return j
		}
	}
	return -1
}

// snapshot is a copy of what a message held when it was encoded: its
// strings are shared, so keeping it costs a few words a part.
type snapshot struct {
	role  llm.Role
	parts []partSnap
	// never marks an encoding that is not kept.
	never bool
}

type partSnap struct {
	part     llm.Part
	call     llm.FunctionCall
	response llm.FunctionResponse
	media    llm.Media
}

func snap(m *llm.Message) snapshot {
	s := snapshot{role: m.Role, parts: make([]partSnap, len(m.Parts))}
	for i, p := range m.Parts {
		ps := partSnap{part: p}
		if p.Call != nil {
			ps.call = *p.Call
		}
		if p.Response != nil {
			ps.response = *p.Response
			ps.response.Media = append([]llm.Media(nil), p.Response.Media...)
		}
		if p.Media != nil {
			ps.media = *p.Media
		}
		s.parts[i] = ps
	}
	return s
}

// equal reports whether m holds what s recorded.
func (s *snapshot) equal(m *llm.Message) bool {
	if s.never || s.role != m.Role || len(s.parts) != len(m.Parts) {
		return false
	}
	for i := range m.Parts {
		p, q := &m.Parts[i], &s.parts[i]
		if p.Text != q.part.Text || p.Thought != q.part.Thought || p.Signature != q.part.Signature ||
			(p.Call == nil) != (q.part.Call == nil) || (p.Response == nil) != (q.part.Response == nil) ||
			(p.Media == nil) != (q.part.Media == nil) {
			return false
		}
		if p.Call != nil && *p.Call != q.call {
			return false
		}
		if p.Media != nil && !sameMedia(p.Media, &q.media) {
			return false
		}
		if r := p.Response; r != nil {
			o := &q.response
			if r.ID != o.ID || r.Name != o.Name || r.Output != o.Output || r.IsError != o.IsError || len(r.Media) != len(o.Media) {
				return false
			}
			for k := range r.Media {
				if !sameMedia(&r.Media[k], &o.Media[k]) {
					return false
				}
			}
		}
	}
	return true
}

func sameMedia(a, b *llm.Media) bool {
	return a.MIMEType == b.MIMEType && bytes.Equal(a.Data, b.Data)
}

// Splice returns the pieces of a body: head, a request encoded with an
// empty list in place of its messages, with the first marker (that empty
// list with its field's name, such as `,"input":[]`) replaced by open
// (`,"input":[`), the non-empty pieces separated by commas, and "]". The
// pieces are sent as they are (transport.Client.Post), never copied into
// one buffer. A marker cannot occur inside a JSON string, where its quotes
// would be escaped, so the first one is the field's.
func Splice(head []byte, marker, open string, pieces ...[]byte) ([][]byte, error) {
	at := bytes.Index(head, []byte(marker))
	if at < 0 {
		return nil, fmt.Errorf("encoding request: %s is missing", marker)
	}
	body := make([][]byte, 0, 2*len(pieces)+3)
	body = append(body, head[:at], []byte(open))
	sep := false
	for _, p := range pieces {
		if len(p) == 0 {
			continue
		}
		if sep {
			body = append(body, comma)
		}
		body = append(body, p)
		sep = true
	}
	return append(body, closing, head[at+len(marker):]), nil
}

var (
	comma   = []byte(",")
	closing = []byte("]")
)

// Bytes is an encode function's result for a JSON encoding.
func Bytes(b []byte, err error) ([]byte, int, error) { return b, len(b), err }

// JoinJSON encodes each of vs with json.Marshal and joins them with
// commas, as the elements of a JSON array without its brackets.
func JoinJSON[T any](vs []T) ([]byte, error) {
	var b []byte
	for i := range vs {
		e, err := json.Marshal(&vs[i])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return b, nil
}
