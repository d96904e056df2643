package loop

import (
	"context"
	"time"

	"github.com/plyhq/ply/internal/turn"
)

// Telemetry is told of a loop for export: the interaction (one loop), its
// rounds and the tool calls each round ran. The session's Recorder
// provides it (TelemetrySource); a loop started by another loop's tools
// (a subagent) reports to its parent's, found in ctx. With telemetry off
// there is none, and the loop pays a nil check per round.
type Telemetry interface {
	// Interaction starts the trace of one loop; the returned context
	// carries it to the rounds.
	Interaction(ctx context.Context, in Input) (context.Context, Interaction)
}

// Interaction is one loop as telemetry sees it. Its methods are called on
// the loop's goroutine, RoundStarted before the others of a round.
type Interaction interface {
	// RoundStarted starts a round; the returned context carries it to the
	// model request and the tools.
	RoundStarted(ctx context.Context) context.Context
	// Retried: the model request failed and is tried again.
	Retried(r turn.Retry)
	// Finished: the model's reply ended, with its usage.
	Finished(f turn.Finished)
	// ToolsRan: a batch of calls, run from start until now, ended with
	// outs (the calls that finished) and err.
	ToolsRan(start time.Time, calls []*turn.ToolCallRequest, outs []Outcome, err error)
	// RoundEnded ends the round started last.
	RoundEnded()
	// Ended ends the interaction with the loop's result.
	Ended(r Result)
}

// TelemetrySource is a Recorder that provides the session's Telemetry,
// or nil when it is off.
type TelemetrySource interface {
	Telemetry() Telemetry
}

type telemetryKey struct{}

// telemetryOf is the loop's Telemetry: its Recorder's, else the one of
// the loop whose tools started it.
func telemetryOf(ctx context.Context, rec Recorder) Telemetry {
	if s, ok := rec.(TelemetrySource); ok {
		if t := s.Telemetry(); t != nil {
			return t
		}
	}
	t, _ := ctx.Value(telemetryKey{}).(Telemetry)
	return t
}

// traced is a loop's telemetry state; the zero value reports nothing.
type traced struct {
	t       Telemetry
	in      Interaction
	inRound bool
}

func (tr *traced) start(ctx context.Context, in Input) context.Context {
	if tr.t == nil {
		return ctx
	}
	ctx, tr.in = tr.t.Interaction(ctx, in)
	return context.WithValue(ctx, telemetryKey{}, tr.t)
}

func (tr *traced) roundStarted(ctx context.Context) context.Context {
	if tr.in == nil {
		return ctx
	}
	tr.roundEnded()
	tr.inRound = true
	return tr.in.RoundStarted(ctx)
}

func (tr *traced) event(ev turn.Event) {
	if tr.in == nil {
		return
	}
	switch e := ev.(type) {
	case turn.Retry:
		tr.in.Retried(e)
	case turn.Finished:
		tr.in.Finished(e)
	}
}

func (tr *traced) toolsRan(start time.Time, calls []*turn.ToolCallRequest, outs []Outcome, err error) {
	if tr.in != nil {
		tr.in.ToolsRan(start, calls, outs, err)
	}
}

func (tr *traced) roundEnded() {
	if tr.in != nil && tr.inRound {
		tr.inRound = false
		tr.in.RoundEnded()
	}
}

func (tr *traced) ended(r Result) {
	if tr.in != nil {
		tr.roundEnded()
		tr.in.Ended(r)
		tr.in = nil
	}
}
