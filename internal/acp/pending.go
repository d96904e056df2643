package acp

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// pending tracks the client's requests that have no answer yet, so that
// when the client closes its end the answers still being written go out
// before ply exits, and so that what must follow an answer (the commands
// of a session just opened) goes out after it.
type pending struct {
	mu    sync.Mutex
	ids   map[string]answer
	empty chan struct{} // closed and replaced whenever ids becomes empty
}

// answer is what a response settled: the request's method and session,
// and whether it failed.
type answer struct {
	method, session string
	failed          bool
}

func newPending() *pending {
	return &pending{ids: map[string]answer{}, empty: make(chan struct{})}
}

// message is what pending reads of a line.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	// Params and Result name the session of a request or an answer.
	Params struct {
		SessionID string `json:"sessionId"`
	} `json:"params"`
	Result struct {
		SessionID string `json:"sessionId"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
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
	p.ids[idKey(m.ID)] = answer{method: *m.Method, session: m.Params.SessionID}
	p.mu.Unlock()
}

// answered notes a line ply wrote; a response settles its request, and
// says which it was (ok false for any other line).
func (p *pending) answered(line []byte) (a answer, ok bool) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != nil || len(m.ID) == 0 {
		return answer{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := idKey(m.ID)
	a, ok = p.ids[k]
	delete(p.ids, k)
	if ok && len(p.ids) == 0 {
		close(p.empty)
		p.empty = make(chan struct{})
	}
	if m.Result.SessionID != "" {
		a.session = m.Result.SessionID
	}
	a.failed = len(m.Error) > 0 && string(m.Error) != "null"
	return a, ok
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
