package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/wirecache"
)

// encodedEntry is a history entry's blocks with each one's JSON, kept
// between requests (package wirecache): merging entries into messages and
// placing the cache breakpoints is redone for every request, encoding
// only for the entries that changed.
type encodedEntry struct {
	entryBlocks
	encResults, encRest [][]byte
}

// encode returns the body of req, in pieces,: json.Marshal of buildRequest's wire
// request, byte for byte, with each history entry's blocks encoded once
// while the entry is unchanged.
func (c *Client) encode(req *llm.Request) ([][]byte, error) {
	b, err := c.head.Encode(req, func() ([]byte, error) { return wirecache.MarshalHead("anthropic", c.buildHead, req) })
	if err != nil {
		return nil, err
	}
	entries, err := c.msgs.Encode(req.Messages, func(i int, m *llm.Message) (encodedEntry, int, error) {
		e, err := convertEntry(i, m)
		if err != nil {
			return encodedEntry{}, 0, err
		}
		out := encodedEntry{entryBlocks: e}
		size := 0
		for _, list := range []struct {
			blocks []block
			enc    *[][]byte
		}{{e.results, &out.encResults}, {e.rest, &out.encRest}} {
			for _, bl := range list.blocks {
				j, err := json.Marshal(bl)
				if err != nil {
					return encodedEntry{}, 0, fmt.Errorf("anthropic: encoding message %d: %w", i, err)
				}
				*list.enc = append(*list.enc, j)
				size += len(j)
			}
		}
		return out, size, nil
	})
	if err != nil {
		return nil, err
	}
	ptrs := make([]*encodedEntry, len(entries))
	for i := range entries {
		ptrs[i] = &entries[i]
	}
	turns := arrange(ptrs)
	marks, err := breakpoints(turns)
	if err != nil {
		return nil, err
	}
	msgs := make([][]byte, len(turns))
	for i, t := range turns {
		var m []byte
		m = append(m, `{"role":"`...)
		m = append(m, t.role...)
		m = append(m, `","content":[`...)
		n := 0
		add := func(e *encodedEntry, k int, enc []byte) {
			if n > 0 {
				m = append(m, ',')
			}
			if mk, ok := marks[blockAt{e, k}]; ok {
				enc = mk
			}
			m = append(m, enc...)
			n++
		}
		for _, e := range t.results {
			for k, enc := range e.encResults {
				add(e, k, enc)
			}
		}
		for _, e := range t.rest {
			for k, enc := range e.encRest {
				add(e, len(e.encResults)+k, enc)
			}
		}
		msgs[i] = append(m, "]}"...)
	}
	body, err := wirecache.Splice(b, `,"messages":null`, `,"messages":[`, msgs...)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return body, nil
}

// blockAt names a block of an entry: its results, then its other blocks.
type blockAt struct {
	e *encodedEntry
	k int
}

// breakpoints returns the encodings, cache breakpoint included, of the
// blocks markCache marks: the last block able to carry one of each of the
// last cachedUserTurns user messages.
func breakpoints(turns []*turn[*encodedEntry]) (map[blockAt][]byte, error) {
	marks := map[blockAt][]byte{}
	n := 0
	for i := len(turns) - 1; i >= 0 && n < cachedUserTurns; i-- {
		t := turns[i]
		if t.role != "user" {
			continue
		}
		var at []blockAt
		var blocks []block
		for _, e := range t.results {
			for k, bl := range e.results {
				at, blocks = append(at, blockAt{e, k}), append(blocks, bl)
			}
		}
		for _, e := range t.rest {
			for k, bl := range e.rest {
				at, blocks = append(at, blockAt{e, len(e.results) + k}), append(blocks, bl)
			}
		}
		for j := len(blocks) - 1; j >= 0; j-- {
			if marked, ok := withCache(blocks[j]); ok {
				enc, err := json.Marshal(marked)
				if err != nil {
					return nil, fmt.Errorf("anthropic: encoding request: %w", err)
				}
				marks[at[j]] = enc
				n++
				break
			}
		}
	}
	return marks, nil
}

// withCache returns a copy of b marked as a cache breakpoint, or false for
// kinds that cannot carry one (setCache).
func withCache(b block) (block, bool) {
	var c block
	switch v := b.(type) {
	case *textBlock:
		x := *v
		c = &x
	case *toolUseBlock:
		x := *v
		c = &x
	case *toolResultBlock:
		x := *v
		c = &x
	case *mediaBlock:
		x := *v
		c = &x
	default:
		return nil, false
	}
	return c, c.setCache()
}
