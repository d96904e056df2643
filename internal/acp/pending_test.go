package acp

import (
	"testing"
	"time"
)

func TestPending(t *testing.T) {
	p := newPending()
	p.request([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	p.request([]byte(`{"jsonrpc":"2.0","id":"a b","method":"session/new"}`))
	p.request([]byte(`{"jsonrpc":"2.0","method":"session/cancel"}`)) // a notification: no answer due
	p.answered([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"id":1}}`))
	p.answered([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	start := time.Now()
	p.wait(50 * time.Millisecond)
	if time.Since(start) < 40*time.Millisecond {
		t.Error("wait returned with a request unanswered")
	}
	done := make(chan struct{})
	go func() { p.wait(time.Minute); close(done) }()
	p.answered([]byte(`{"jsonrpc":"2.0", "id" : "a b","error":{"code":1,"message":"x"}}`))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("wait did not return when the last request was answered")
	}
}

func FuzzPending(f *testing.F) {
	f.Add([]byte(`1`))
	f.Add([]byte(`"x"`))
	f.Add([]byte(`1.0`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, id []byte) {
		p := newPending()
		p.request([]byte(`{"method":"m","id":` + string(id) + `}`))
		p.answered([]byte(`{"id":` + string(id) + `,"result":null}`))
		p.mu.Lock()
		n := len(p.ids)
		p.mu.Unlock()
		if n != 0 {
			t.Fatalf("id %s is still pending after its answer", id)
		}
	})
}

// answered says which request a response settles and for which session:
// the request's, or the one the response names (session/new).
func TestPendingAnsweredNamesTheSession(t *testing.T) {
	p := newPending()
	p.request([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/"}}`))
	p.request([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"s2","cwd":"/"}}`))
	if got, ok := p.answered([]byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`)); !ok || got != (answer{method: "session/new", session: "s1"}) {
		t.Errorf("session/new answered: %+v, %v", got, ok)
	}
	if got, ok := p.answered([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)); !ok || got != (answer{method: "session/load", session: "s2"}) {
		t.Errorf("session/load answered: %+v, %v", got, ok)
	}
	if _, ok := p.answered([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)); ok {
		t.Error("an answer to no request settled one")
	}
	p.request([]byte(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{}}`))
	if got, ok := p.answered([]byte(`{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}`)); !ok || !got.failed {
		t.Errorf("a failed session/new: %+v, %v", got, ok)
	}
}
