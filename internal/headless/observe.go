package headless

import (
	"strings"
	"time"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/turn"
)

// A run is the loop's Observer: it prints each reply when its round ends
// (or a continuation starts a new message), the calls before they run and
// their results after, and progress lines for retries, continuations,
// compressions and background waits.

// roundView is what the running round has shown so far. The reply's text
// comes whole with Finished, held once by the chat; only the thought is
// spelled out here.
type roundView struct {
	thought   strings.Builder
	signature string
	calls     []*turn.ToolCallRequest
	finished  *turn.Finished
	partials  partials
}

// RoundStarted starts the clock of a round and a fresh view of it.
func (r *run) RoundStarted() {
	// A result written inside the round (an error, a loop) counts the
	// round so far; see apiDuration.
	r.roundStart = time.Now()
	r.rd = roundView{partials: partials{p: r.out, on: r.cfg.PartialMessages && r.cfg.Format == FormatStreamJSON}}
}

// RoundEnded prints the round's reply and stops its clock.
func (r *run) RoundEnded([]*turn.ToolCallRequest) {
	r.apiTime += time.Since(r.roundStart)
	r.roundStart = time.Time{}
	r.flush()
}

// Event follows one event of the running round.
func (r *run) Event(ev turn.Event) {
	rd := &r.rd
	rd.partials.event(ev)
	switch e := ev.(type) {
	case turn.Content:
		if rd.finished != nil {
			// A continuation (next-speaker, Stop hook) starts a new
			// message.
			r.flush()
			rd.thought.Reset()
			rd.calls, rd.finished = nil, nil
		}
	case turn.Thought:
		rd.thought.WriteString(e.Text)
		if e.Signature != "" {
			rd.signature = e.Signature
		}
	case *turn.ToolCallRequest:
		rd.calls = append(rd.calls, e)
	case turn.Retry:
		rd.thought.Reset()
		rd.calls = nil
		r.out.progress("retrying the model request (attempt %d failed: %s)", e.Attempt, abbreviate(e.Reason, 200))
	case turn.Continued:
		r.out.progress("the reply was cut (%s); continuing it (continuation %d)", abbreviate(e.Reason, 200), e.Attempt)
	case turn.ChatCompressed:
		r.out.compacted(e)
	case turn.Finished:
		f := e
		rd.finished = &f
	}
}

// flush prints the reply the round has finished, if any.
func (r *run) flush() {
	rd := &r.rd
	if rd.finished == nil {
		return
	}
	r.out.assistant(rd.thought.String(), rd.signature, rd.finished.Text, rd.calls, rd.finished)
	if t := rd.finished.Text; t != "" {
		r.lastText = t
	}
	r.usage.Add(rd.finished.Usage)
}

// BatchStarting shows the calls about to run.
func (r *run) BatchStarting(calls []*turn.ToolCallRequest) {
	for _, c := range calls {
		r.out.progress("→ %s %s", c.Name, abbreviate(c.Args, 120))
	}
}

// BatchEnded prints the results of the calls that finished, and notes
// their denials and errors.
func (r *run) BatchEnded(outs []Outcome, _ error) {
	for _, o := range outs {
		resp := o.Response
		if o.Denied {
			r.denials = append(r.denials, Denial{ToolName: resp.Name, ToolUseID: resp.ID, ToolInput: ToolInput(o.Args)})
		}
		if resp.IsError {
			r.out.progress("✗ %s: %s", resp.Name, abbreviate(resp.Output, 200))
		}
	}
	r.out.toolResults(outs)
}

// Announce prints a round no user typed, before it is sent.
func (r *run) Announce(next inbox.Round) { r.out.systemRound(next) }

// WaitingFor says that the run waits for background work.
func (r *run) WaitingFor(n int) {
	r.out.progress("waiting for %d background task(s) to finish", n)
}
