// Package inbox holds the rounds an entry layer has yet to send that no
// user typed: a background task's notification, a schedule's firing, a
// teammate's message. The entry layer takes them only at a round boundary
// (when the session is idle, or after the running round), so they never
// land in the middle of a round or between a call and its response.
//
// It also counts the background work that will post later, so that a
// headless run can wait for it before it ends.
package inbox

import (
	"context"
	"sync"

	"github.com/plyhq/ply/internal/client"
)

// Round is one queued round.
type Round struct {
	// Type is Notification, Cron or Teammate.
	Type client.SendType
	// Source names what sent it ("agent bg-1", "schedule 2"); the entry
	// layer shows it before the round.
	Source string
	// Text is the round's content, as the model reads it.
	Text string
	// Summary is one line for the user; empty uses Source.
	Summary string
	// Done, when set, is called once the interaction the round started
	// has ended (the model stopped, or the session ended): a schedule
	// does not fire again while its last firing still runs.
	Done func()
}

// Inbox is one session's queue. The zero value is not usable; use New.
type Inbox struct {
	mu     sync.Mutex
	q      []Round
	held   int
	closed bool
	ready  chan struct{} // capacity 1: a pending wake-up
}

// New returns an empty inbox.
func New() *Inbox { return &Inbox{ready: make(chan struct{}, 1)} }

// Post queues r and wakes a waiting loop. It reports false, dropping r,
// once the inbox is closed (the session ended).
func (b *Inbox) Post(r Round) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.q = append(b.q, r)
	b.mu.Unlock()
	b.wake()
	return true
}

func (b *Inbox) wake() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// Ready receives when a round may be waiting or held work ended; Take
// says whether there is one.
func (b *Inbox) Ready() <-chan struct{} { return b.ready }

// Take returns the oldest queued round.
func (b *Inbox) Take() (Round, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.q) == 0 {
		return Round{}, false
	}
	r := b.q[0]
	b.q[0] = Round{}
	b.q = b.q[1:]
	return r, true
}

// Len is how many rounds are queued.
func (b *Inbox) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.q)
}

// Hold records background work that may post a round later; the returned
// function releases it (calling it again does nothing).
func (b *Inbox) Hold() (release func()) {
	b.mu.Lock()
	b.held++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.held--
			b.mu.Unlock()
			b.wake()
		})
	}
}

// Held is how much background work is still held.
func (b *Inbox) Held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// Next returns the next round, waiting for one while background work is
// held. It reports false when nothing is queued or held, or when ctx ends.
func (b *Inbox) Next(ctx context.Context) (Round, bool) {
	for {
		if r, ok := b.Take(); ok {
			return r, true
		}
		if b.Held() == 0 {
			return Round{}, false
		}
		select {
		case <-b.ready:
		case <-ctx.Done():
			return Round{}, false
		}
	}
}

// Close drops what is queued and refuses later posts.
func (b *Inbox) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.q = nil
}

// TakeType takes every queued round of type t, oldest first, and leaves
// the others in order.
func (b *Inbox) TakeType(t client.SendType) []Round {
	b.mu.Lock()
	defer b.mu.Unlock()
	var took []Round
	kept := b.q[:0]
	for _, r := range b.q {
		if r.Type == t {
			took = append(took, r)
		} else {
			kept = append(kept, r)
		}
	}
	clear(b.q[len(kept):])
	b.q = kept
	return took
}
