package wirecache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/plyhq/ply/internal/llm"
)

// Head keeps the encoding of the part of a request that is not its
// history: the model, the system prompt, the tools and the settings. They
// are the same from one request to the next in a session, and the tools'
// schemas, encoded anew, cost as much as the rest of the request's
// assembly. The zero value is ready to use; it is safe for concurrent use.
type Head[T any] struct {
	mu  sync.Mutex
	key headKey
	enc T
	ok  bool
}

// headKey is a copy of what a head is encoded from. Its strings are
// shared with the request; the tools' parameters, which a caller could
// change in place, are copied.
type headKey struct {
	model, system string
	maxOut        int
	temp          uint64 // the bits: -0 and 0 are encoded differently
	hasTemp       bool
	effort        llm.Effort
	tools         []llm.ToolDecl
}

func keyOf(req *llm.Request) headKey {
	k := headKey{model: req.Model, system: req.System, maxOut: req.MaxOutputTokens, effort: req.Effort}
	if req.Temperature != nil {
		k.temp, k.hasTemp = math.Float64bits(*req.Temperature), true
	}
	k.tools = make([]llm.ToolDecl, len(req.Tools))
	for i, t := range req.Tools {
		t.Parameters = bytes.Clone(t.Parameters)
		k.tools[i] = t
	}
	return k
}

// matches reports whether req's head is the one k was taken from.
func (k *headKey) matches(req *llm.Request) bool {
	if k.model != req.Model || k.system != req.System || k.maxOut != req.MaxOutputTokens || k.effort != req.Effort ||
		k.hasTemp != (req.Temperature != nil) || k.hasTemp && k.temp != math.Float64bits(*req.Temperature) || len(k.tools) != len(req.Tools) {
		return false
	}
	for i := range req.Tools {
		a, b := &k.tools[i], &req.Tools[i]
		if a.Name != b.Name || a.Description != b.Description || !bytes.Equal(a.Parameters, b.Parameters) ||
			(a.Parameters == nil) != (b.Parameters == nil) {
			return false
		}
	}
	return true
}

// Encode returns the head's encoding of req: the one the last call made
// when req's model, system prompt, tools and settings equal that call's,
// or encode's. An encoding that failed is not kept. The result is shared
// between calls and must not be changed.
func (h *Head[T]) Encode(req *llm.Request, encode func() (T, error)) (T, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ok && h.key.matches(req) {
		return h.enc, nil
	}
	enc, err := encode()
	if err != nil {
		var zero T
		return zero, err
	}
	h.key, h.enc, h.ok = keyOf(req), enc, true
	return enc, nil
}

// MarshalHead is the JSON of build(req), a provider's head of a request;
// an error encoding it names provider. It is what a Head's encode
// function does for most wire formats.
func MarshalHead[R, T any](provider string, build func(R) (T, error), req R) ([]byte, error) {
	head, err := build(req)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding request: %w", provider, err)
	}
	return b, nil
}
