package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/wirecache"
)

// encodedEntry is a history entry's parts as JSON, kept between requests
// (package wirecache). A user entry's function responses are ordered by
// the calls before them, so they are kept one by one, in the entry's
// order, and placed for every request; merging entries is redone too.
type encodedEntry struct {
	// model is a model entry's parts.
	model [][]byte
	// responses[k] and media[k] are the k-th function response of a user
	// entry and the media it returned; a response without a name, which
	// takes its call's, is nil and encoded for each request. own is the
	// entry's own text and media.
	responses [][]byte
	media     [][][]byte
	own       [][]byte
}

// encodedHead is the model a request is for and the encoding of what it
// holds besides the history.
type encodedHead struct {
	model   string
	request []byte
}

// encode returns the body of req, in pieces, and the model it is for: json.Marshal of
// buildRequest's wire request, byte for byte, with each history entry's
// parts encoded once while the entry is unchanged.
func (c *Client) encode(req *llm.Request) (string, [][]byte, error) {
	h, err := c.head.Encode(req, func() (encodedHead, error) {
		model, head, err := c.buildHead(req)
		if err != nil {
			return encodedHead{}, err
		}
		b, err := json.Marshal(head)
		if err != nil {
			return encodedHead{}, fmt.Errorf("gemini: encoding request: %w", err)
		}
		return encodedHead{model, b}, nil
	})
	if err != nil {
		return "", nil, err
	}
	model, b := h.model, h.request
	entries, err := c.msgs.Encode(req.Messages, encodeEntry)
	if err != nil {
		return "", nil, err
	}
	type turn struct {
		role            string
		responses, rest [][]byte
	}
	var turns []*turn
	var calls []*llm.FunctionCall // the calls of the last model turn
	for i := range req.Messages {
		m, e := &req.Messages[i], &entries[i]
		var last *turn
		if len(turns) > 0 {
			last = turns[len(turns)-1]
		}
		if m.Role == llm.RoleModel {
			if len(e.model) == 0 {
				continue
			}
			if last != nil && last.role == "model" {
				last.rest = append(last.rest, e.model...)
				calls = append(calls, m.Calls()...)
			} else {
				turns = append(turns, &turn{role: "model", rest: e.model})
				calls = m.Calls()
			}
			continue
		}
		var responses, rest [][]byte
		for _, x := range orderResponses(m, calls) {
			k := responseIndex(m, x.r)
			enc := e.responses[k]
			if enc == nil {
				if enc, err = json.Marshal(responsePart(x, calls)); err != nil {
					return "", nil, fmt.Errorf("gemini: encoding message %d: %w", i, err)
				}
			}
			responses = append(responses, enc)
			rest = append(rest, e.media[k]...)
		}
		rest = append(rest, e.own...)
		switch {
		case len(responses)+len(rest) == 0:
		case last != nil && last.role == "user":
			last.responses = append(last.responses, responses...)
			last.rest = append(last.rest, rest...)
		default:
			turns = append(turns, &turn{role: "user", responses: responses, rest: rest})
		}
	}
	if len(turns) == 0 {
		// No contents: null, as encoding/json writes a nil slice.
		return model, [][]byte{b}, nil
	}
	contents := make([][]byte, len(turns))
	for i, t := range turns {
		var out []byte
		out = append(out, `{"role":"`...)
		out = append(out, t.role...)
		out = append(out, `","parts":[`...)
		for k, p := range append(t.responses, t.rest...) {
			if k > 0 {
				out = append(out, ',')
			}
			out = append(out, p...)
		}
		contents[i] = append(out, "]}"...)
	}
	body, err := wirecache.Splice(b, `{"contents":null`, `{"contents":[`, contents...)
	if err != nil {
		return "", nil, fmt.Errorf("gemini: %w", err)
	}
	return model, body, nil
}

// encodeEntry encodes history entry i's parts.
func encodeEntry(i int, m *llm.Message) (encodedEntry, int, error) {
	var e encodedEntry
	size := 0
	enc := func(p part) ([]byte, error) {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("gemini: encoding message %d: %w", i, err)
		}
		size += len(b)
		return b, nil
	}
	encAll := func(ps []part) ([][]byte, error) {
		var out [][]byte
		for _, p := range ps {
			b, err := enc(p)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	}
	var err error
	switch m.Role {
	case llm.RoleModel:
		e.model, err = encAll(modelParts(m))
	case llm.RoleUser:
		for _, p := range m.Parts {
			r := p.Response
			if r == nil {
				continue
			}
			var b []byte
			if r.Name != "" {
				if b, err = enc(responsePart(placedResponse{r: r}, nil)); err != nil {
					return e, 0, err
				}
			}
			media, err := encAll(responseMedia(r))
			if err != nil {
				return e, 0, err
			}
			e.responses, e.media = append(e.responses, b), append(e.media, media)
		}
		e.own, err = encAll(ownParts(m))
	default:
		err = fmt.Errorf("gemini: message %d: unknown role %q", i, m.Role)
	}
	return e, size, err
}

// responseIndex is the index of r among m's function responses.
func responseIndex(m *llm.Message, r *llm.FunctionResponse) int {
	k := 0
	for _, p := range m.Parts {
		if p.Response == r {
			return k
		}
		if p.Response != nil {
			k++
		}
	}
	return -1
}
