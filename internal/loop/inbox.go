package loop

import (
	"context"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
)

// The inbox's rounds: a background task's notification, a schedule's
// firing, a teammate's message. Each is announced to the observer and
// recorded before it is sent; its interaction ends (Round.Done) when the
// model next stops or the loop ends.
//
// A teammate's message that arrives while tools run goes out with their
// results, after them: it reaches the loop at the next round boundary
// without breaking a call's pairing with its response. Other rounds wait
// for the model to stop, and then Config.AtEnd decides.

// startRounds announces and records rounds taken before the loop started
// and returns their text.
func (l *run) startRounds(rs []inbox.Round) []llm.Part {
	var parts []llm.Part
	for _, r := range rs {
		l.start(r)
		parts = append(parts, llm.Part{Text: r.Text})
	}
	return parts
}

func (l *run) start(r inbox.Round) {
	l.obs.announce(r)
	l.rec.Round(r)
	if r.Done != nil {
		l.done = append(l.done, r.Done)
	}
}

// endRounds tells the rounds sent so far that their interaction ended.
func (l *run) endRounds() {
	done := l.done
	l.done = nil
	for _, f := range done {
		f()
	}
}

// fromInbox ends the interaction of the rounds sent so far and takes the
// next round as AtEnd says, waiting (bounded by ctx) when it says Wait.
func (l *run) fromInbox(ctx context.Context) (inbox.Round, bool) {
	l.endRounds()
	in := l.cfg.Inbox
	if in == nil || l.cfg.AtEnd == Leave {
		return inbox.Round{}, false
	}
	var (
		r  inbox.Round
		ok bool
	)
	if l.cfg.AtEnd == Take {
		r, ok = in.Take()
	} else {
		if in.Held() > 0 && in.Len() == 0 {
			l.obs.waitingFor(in.Held())
		}
		r, ok = in.Next(ctx)
	}
	if ok {
		l.start(r)
	}
	return r, ok
}

// teammates takes the teammates' messages that arrived while tools ran.
func (l *run) teammates() []llm.Part {
	if l.cfg.Inbox == nil {
		return nil
	}
	return l.startRounds(l.cfg.Inbox.TakeType(client.Teammate))
}
