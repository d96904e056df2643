package acp

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// pending tracks the client's requests that have no answer yet, so that
// when the client closes its end the answers still being written go out
// before ply exits.
type pending struct {
	mu    sync.Mutex
	ids   map[string]bool
	empty chan struct{} // closed and replaced whenever ids becomes empty
}

func newPending() *pending {
	return &pending{ids: map[string]bool{}, empty: make(chan struct{})}
}

// message is what pending reads of a line.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// idKey is the key of a JSON-RPC id: its compact JSON text.
func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// request notes a request line from the client.
func (p *pending) request(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method == nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	p.mu.Lock()
	p.ids[idKey(m.ID)] = true
	p.mu.Unlock()
}

// answered notes a line ply wrote; a response settles its request.
func (p *pending) answered(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != nil || len(m.ID) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.ids, idKey(m.ID))
	if len(p.ids) == 0 {
		close(p.empty)
		p.empty = make(chan struct{})
	}
}

// wait returns when every noted request is answered, or after d.
func (p *pending) wait(d time.Duration) {
	p.mu.Lock()
	if len(p.ids) == 0 {
		p.mu.Unlock()
		return
	}
	ch := p.empty
	p.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(d):
	}
}
