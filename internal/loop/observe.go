package loop

import (
	"context"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/turn"
)

// Observer is how an entry layer sees the loop: every event of every
// round, in stream order, on the loop's goroutine. An Observer may also
// implement the interfaces below; the loop probes for them.
type Observer interface {
	Event(ev turn.Event)
}

// RoundWatcher is told when a round starts, and when it ended without
// ending the loop, with the calls it asks for (none when the model
// stopped).
type RoundWatcher interface {
	RoundStarted()
	RoundEnded(calls []*turn.ToolCallRequest)
}

// BatchWatcher is told when a batch of calls is about to run, and how it
// ended: the outcomes of the calls that finished and the error that cut
// it short, if any.
type BatchWatcher interface {
	BatchStarting(calls []*turn.ToolCallRequest)
	BatchEnded(outs []Outcome, err error)
}

// Announcer shows a round no user typed (a background task's
// notification, a schedule's firing, a teammate's message) before it is
// sent.
type Announcer interface {
	Announce(r inbox.Round)
}

// InboxWaiter is told that the loop waits for n background tasks that may
// still post a round.
type InboxWaiter interface {
	WaitingFor(n int)
}

// TurnCapAsker asks the user whether the loop may make n more tool calls
// past the per-turn cap; false declines (or the question could not be
// asked).
type TurnCapAsker interface {
	AskTurnCap(ctx context.Context, n int) bool
}

// observers is an Observer with its optional parts resolved once.
type observers struct {
	o     Observer
	round RoundWatcher
	batch BatchWatcher
	ann   Announcer
	wait  InboxWaiter
}

func observe(o Observer) observers {
	obs := observers{o: o}
	obs.round, _ = o.(RoundWatcher)
	obs.batch, _ = o.(BatchWatcher)
	obs.ann, _ = o.(Announcer)
	obs.wait, _ = o.(InboxWaiter)
	return obs
}

func (o observers) event(ev turn.Event) {
	if o.o != nil {
		o.o.Event(ev)
	}
}

func (o observers) roundStarted() {
	if o.round != nil {
		o.round.RoundStarted()
	}
}

func (o observers) roundEnded(calls []*turn.ToolCallRequest) {
	if o.round != nil {
		o.round.RoundEnded(calls)
	}
}

func (o observers) batchStarting(calls []*turn.ToolCallRequest) {
	if o.batch != nil {
		o.batch.BatchStarting(calls)
	}
}

func (o observers) batchEnded(outs []Outcome, err error) {
	if o.batch != nil {
		o.batch.BatchEnded(outs, err)
	}
}

func (o observers) announce(r inbox.Round) {
	if o.ann != nil {
		o.ann.Announce(r)
	}
}

func (o observers) waitingFor(n int) {
	if o.wait != nil {
		o.wait.WaitingFor(n)
	}
}
