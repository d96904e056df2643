// Package loop owns the agent loop that every entry layer runs — headless
// `-p`, the SDK's queries, the TUI's interactions, ACP's prompts and
// subagents: send a round, run the tool calls it asks for, send their
// results back, until the model asks for no tool. Around that it holds
// what must behave the same in every entry: the caps (a subagent's work
// counts against its parent's), the loop guards' stops and the per-turn
// cap question, the inbox's rounds (a teammate's message joins the next
// request after the tool results), keeping a cut batch's results, a
// checkpoint at each round boundary and the record of a cancellation.
//
// It does not render, ask for approvals or map its Result to a protocol:
// an entry sees the loop through an Observer (and the optional interfaces
// probed on it, as net/http probes http.Flusher) and turns the Result into
// its exit code, stop reason or message. It does not write the transcript
// either: a Recorder, the session's, does.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/turn"
)

// Rounds is the client as the loop drives it.
type Rounds interface {
	SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event]
}

// Tools runs one batch of calls and returns one outcome per call that
// finished, in call order; an error (or ctx's end) cuts the batch short.
type Tools interface {
	RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error)
}

// Outcome is a finished call.
type Outcome struct {
	Response llm.FunctionResponse
	// Denied marks a call refused by the permission policy.
	Denied bool
	Args   string
	// Start and End are when the call started running (when it was
	// scheduled, for one refused before it ran) and when it ended; zero
	// for a call answered without being scheduled.
	Start, End time.Time
}

// Recorder is what the session keeps of the loop beside the chat's
// history. Each method is called on the loop's goroutine.
type Recorder interface {
	// Checkpoint saves the transcript: a round ended and its calls are
	// about to run. What it must make durable (fsync) beyond what a
	// killed process leaves is the recorder's to decide. An error means
	// the session could not be saved: the loop ends (Unsaved) rather
	// than run work it cannot record.
	Checkpoint() error
	// Compressed follows the chat's compression of its history.
	Compressed()
	// Keep holds results the loop will not send (the batch was cut
	// short): what is sent next carries them.
	Keep(parts []llm.Part)
	// Cancelled records that the loop was cancelled, and why.
	Cancelled(reason string)
	// Round records a round no user typed, before it is sent.
	Round(r inbox.Round)
}

// SaveChecker is a Recorder that tells, without waiting for the disk,
// that the session can no longer be saved (a write already failed): a
// loop then ends (Unsaved) before it sends anything.
type SaveChecker interface {
	Err() error
}

// InboxAtEnd says what the loop does with the inbox when the model stops.
type InboxAtEnd int

const (
	// Leave: the loop ends; the entry starts the inbox's rounds itself
	// (the TUI, once typed input has gone).
	Leave InboxAtEnd = iota
	// Take: queued rounds are sent before the loop ends; work still
	// running is not waited for (ACP: a person is at the other end).
	Take
	// Wait: queued rounds are sent, and the loop waits while the inbox
	// holds work that may still post one (headless, the SDK, background
	// subagents).
	Wait
)

// Caps bound a loop; zero means none. A loop started by another's tools
// (a subagent) also counts against the other's caps.
type Caps struct {
	MaxTurns     int
	MaxToolCalls int
	MaxWallTime  time.Duration
}

// TurnCap is the per-turn tool-call cap the loop guard holds
// (*loopdetect.Detector): its size, and a way to raise it.
type TurnCap interface {
	TurnCap() int
	ExtendTurnCap(n int)
}

// Config is one loop's layers and rules.
type Config struct {
	Rounds   Rounds
	Tools    Tools
	Observer Observer // nil sees nothing
	Recorder Recorder // nil records nothing
	Inbox    *inbox.Inbox
	AtEnd    InboxAtEnd
	Caps     Caps
	// TurnCap, with an Observer that is a TurnCapAsker, lets the user go
	// on past the per-turn cap; without either, the cap ends the loop.
	TurnCap TurnCap
	// StructuredOutput names the tool whose first successful call ends
	// the loop with its arguments (--json-schema); empty when not used.
	StructuredOutput string
	// CancelReason is what Recorder.Cancelled is told when ctx is
	// cancelled without a cause of its own ("cancelled by the user").
	CancelReason string
	// Steer, when set, holds the user's messages to deliver mid-turn
	// (steer.go): after the running batch, with its results, or when
	// the model stops, as the next prompt of the same loop.
	Steer Steerer
}

// Input is what the loop's first round sends: Lead (answers a resumed
// session owes), then the text of Rounds (inbox rounds taken before the
// loop started), then Parts, as one message of type Type.
type Input struct {
	Lead   []llm.Part
	Rounds []inbox.Round
	Parts  []llm.Part
	Type   client.SendType
	// Model names the model this loop's requests go to when it is not
	// the session's (a subagent's own), for telemetry; "" for the
	// session's current model.
	Model string
}

// Stop says why a loop ended.
type Stop int

const (
	// Done: the model asked for no tool and no inbox round was due.
	Done Stop = iota
	// Cancelled: ctx was cancelled (context.Cause says by whom).
	Cancelled
	// WallTime: Caps.MaxWallTime ran out.
	WallTime
	// MaxTurns, MaxToolCalls: a cap of Caps (this loop's or its
	// parent's) would have been passed.
	MaxTurns
	MaxToolCalls
	// TurnCapReached: the per-turn cap was reached and not raised.
	TurnCapReached
	// Loop: a loop guard stopped the model.
	Loop
	// ModelError: the model request failed (Err; a hook's refusal of the
	// prompt is a *client.PromptRefused).
	ModelError
	// ToolError: running the tools failed (Err; a PostToolBatch hook's
	// stop is a *scheduler.BatchStoppedError).
	ToolError
	// Structured: the structured-output tool was called (Structured).
	Structured
	// NoStructuredOutput: the model stopped without calling the
	// structured-output tool, even when told to.
	NoStructuredOutput
	// Unsaved: the transcript could not be written (Err, a
	// *SaveError): the loop stopped at the round boundary, before any
	// further call ran.
	Unsaved
)

// SaveError is the error of an Unsaved stop: the session could not be
// saved.
type SaveError struct{ Err error }

func (e *SaveError) Error() string { return "the session could not be saved: " + e.Err.Error() }
func (e *SaveError) Unwrap() error { return e.Err }

// Result is how a loop ended, and what it did.
type Result struct {
	Stop    Stop
	Err     error
	Message string // the cap's, the guard's or the error's words
	Guard   string // the loop guard that stopped the model (Loop, TurnCapReached)
	// Finish is the last reply's finish reason.
	Finish llm.FinishReason
	// Turns counts rounds, Background the rounds no user started (inbox
	// rounds), ToolCalls the calls run.
	Turns, Background, ToolCalls int
	Structured                   json.RawMessage
}

// Failed reports whether the loop ended on anything but the model's stop
// or the structured output.
func (r Result) Failed() bool { return r.Stop != Done && r.Stop != Structured }

var errWallTime = errors.New("wall-time limit reached")

// structuredDue is the prompt that tells a model which stopped in plain
// text that the run ends only with a call to the structured-output tool.
const structuredDue = "This run ends only with a call to %s with the result as its arguments; your last reply was not one. Call %s now."

// capGoOn is the prompt that resumes a loop past the per-turn cap.
const capGoOn = "The user allowed another %d tool calls for this request. Go on where you stopped; your last reply's tool calls were not run."

// Run drives the loop from in until it stops.
func Run(ctx context.Context, cfg Config, in Input) Result {
	if cfg.Caps.MaxWallTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cfg.Caps.MaxWallTime, errWallTime)
		defer cancel()
	}
	l := &run{cfg: cfg, obs: observe(cfg.Observer), rec: cfg.Recorder, budget: newBudget(ctx, cfg.Caps)}
	if l.rec == nil {
		l.rec = nopRecorder{}
	}
	l.tel.t = telemetryOf(ctx, cfg.Recorder)
	ctx = l.tel.start(ctx, in)
	defer l.endRounds()
	parts := append(append([]llm.Part(nil), in.Lead...), l.startRounds(in.Rounds)...)
	if c, ok := l.rec.(SaveChecker); ok {
		if err := c.Err(); err != nil {
			// Nothing of this loop could be recorded: send nothing.
			return l.traceEnd(l.stop(unsavedEnd(err)))
		}
	}
	return l.traceEnd(l.loop(ctx, append(parts, in.Parts...), in.Type))
}

// traceEnd ends the loop's trace with r.
func (l *run) traceEnd(r Result) Result {
	l.tel.ended(r)
	return r
}

type run struct {
	cfg    Config
	obs    observers
	rec    Recorder
	budget *budget
	res    Result
	tel    traced
	// done are the interactions of the inbox rounds sent since the model
	// last stopped: they end when it stops again, or the loop does.
	done []func()
	// toldStructured: the model was told once to call the
	// structured-output tool.
	toldStructured bool
}

func (l *run) loop(ctx context.Context, parts []llm.Part, typ client.SendType) Result {
	for {
		if over := l.budget.turn(); over != nil {
			return l.stop(*over)
		}
		l.res.Turns++
		if !typ.UserPrompt() && typ.TopLevel() {
			l.res.Background++
		}
		rctx := l.tel.roundStarted(ctx)
		calls, stop := l.round(rctx, parts, typ)
		if stop != nil {
			if stop.Stop == TurnCapReached && l.goOn(ctx) {
				parts, typ = []llm.Part{{Text: fmt.Sprintf(capGoOn, l.cfg.TurnCap.TurnCap())}}, client.Hook
				continue
			}
			return l.stop(*stop)
		}
		// The reply, and any calls it asks for, are in the transcript
		// before a tool runs (on disk before one that may change
		// something; the recorder decides): a crash in a tool leaves a
		// resumable session. What cannot be recorded is not run.
		if unsaved := l.checkpoint(); unsaved != nil {
			return l.stop(*unsaved)
		}
		if len(calls) == 0 {
			l.tel.roundEnded()
			if now := l.steering(false); len(now) > 0 {
				parts, typ = now, client.UserQuery
				continue
			}
			next, ok := l.fromInbox(ctx)
			if !ok {
				if ctx.Err() != nil {
					return l.cancelled(ctx)
				}
				if name := l.cfg.StructuredOutput; name != "" {
					if l.toldStructured {
						return l.stop(Result{Stop: NoStructuredOutput,
							Message: "the model answered without calling " + name + ": no structured result was produced"})
					}
					l.toldStructured = true
					parts, typ = []llm.Part{{Text: fmt.Sprintf(structuredDue, name, name)}}, client.Hook
					continue
				}
				return l.stop(Result{Stop: Done})
			}
			parts, typ = []llm.Part{{Text: next.Text}}, next.Type
			continue
		}
		if over := l.budget.toolCalls(len(calls)); over != nil {
			return l.stop(*over)
		}
		l.res.ToolCalls += len(calls)
		var res []llm.Part
		var end *Result
		res, parts, end = l.batch(rctx, calls)
		if end != nil {
			return l.stop(*end)
		}
		l.tel.roundEnded()
		parts = append(res, parts...)
		typ = client.ToolResult
	}
}

// batch runs calls and returns their results and the teammates' messages
// to send after them, or how the loop ends.
func (l *run) batch(ctx context.Context, calls []*turn.ToolCallRequest) (results, after []llm.Part, end *Result) {
	l.obs.batchStarting(calls)
	var start time.Time
	if l.tel.in != nil {
		start = time.Now()
	}
	outs, err := l.cfg.Tools.RunTools(withBudget(ctx, l.budget), calls)
	l.tel.toolsRan(start, calls, outs, err)
	l.obs.batchEnded(outs, err)
	parts := make([]llm.Part, len(outs))
	for i := range outs {
		parts[i] = llm.Part{Response: &outs[i].Response}
	}
	if over := l.budget.reached(); over != nil {
		// A subagent ran into a cap: the session is over it too.
		l.rec.Keep(parts)
		return nil, nil, over
	}
	if err != nil || ctx.Err() != nil {
		// Kept before the loop's end is recorded (a cancellation), so
		// the transcript reads in the order things happened.
		l.rec.Keep(parts)
		if ctx.Err() != nil {
			r := l.cancelled(ctx)
			return nil, nil, &r
		}
		return nil, nil, &Result{Stop: ToolError, Err: err, Message: "running tools: " + err.Error()}
	}
	if obj, ok := l.structured(outs); ok {
		l.rec.Keep(parts)
		if unsaved := l.checkpoint(); unsaved != nil {
			return nil, nil, unsaved
		}
		return nil, nil, &Result{Stop: Structured, Structured: obj}
	}
	return parts, append(l.teammates(), l.steering(true)...), nil
}

// structured returns the arguments of the first successful call of the
// structured-output tool.
func (l *run) structured(outs []Outcome) (json.RawMessage, bool) {
	if l.cfg.StructuredOutput == "" {
		return nil, false
	}
	for _, o := range outs {
		if o.Response.Name == l.cfg.StructuredOutput && !o.Response.IsError {
			return RawArgs(o.Args), true
		}
	}
	return nil, false
}

// RawArgs is a call's arguments as a JSON value: the text when it is
// valid JSON ({} when empty), else the text as a JSON string, so that a
// malformed call still prints as valid JSON.
func RawArgs(args string) json.RawMessage {
	if args == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// round runs one round-trip, passing every event to the observer. It
// returns the calls to run, or how the loop ends.
func (l *run) round(ctx context.Context, parts []llm.Part, typ client.SendType) ([]*turn.ToolCallRequest, *Result) {
	var calls []*turn.ToolCallRequest
	l.obs.roundStarted()
	for ev := range l.cfg.Rounds.SendMessageStream(ctx, parts, typ) {
		if d, ok := ev.(turn.LoopDetected); ok && d.Guard == string(loopdetect.GuardTurnCap) {
			// Passed on only if the loop ends here (see goOn).
			return nil, &Result{Stop: TurnCapReached, Guard: d.Guard, Message: d.Message}
		}
		l.obs.event(ev)
		l.tel.event(ev)
		switch e := ev.(type) {
		case *turn.ToolCallRequest:
			calls = append(calls, e)
		case turn.Retry:
			// The failed attempt's calls are not the retry's.
			calls = nil
		case turn.ChatCompressed:
			l.rec.Compressed()
		case turn.Finished:
			l.res.Finish = e.Reason
		case turn.LoopDetected:
			return nil, &Result{Stop: Loop, Guard: e.Guard, Message: e.Message}
		case turn.UserCancelled:
			r := l.cancelled(ctx)
			return nil, &r
		case turn.Error:
			if ctx.Err() != nil {
				r := l.cancelled(ctx)
				return nil, &r
			}
			return nil, &Result{Stop: ModelError, Err: e.Err, Message: e.Err.Error()}
		}
	}
	if ctx.Err() != nil {
		r := l.cancelled(ctx)
		return nil, &r
	}
	l.obs.roundEnded(calls)
	return calls, nil
}

// checkpoint makes the transcript durable, and returns the loop's end
// when it could not.
func (l *run) checkpoint() *Result {
	err := l.rec.Checkpoint()
	if err == nil {
		return nil
	}
	r := unsavedEnd(err)
	return &r
}

// unsavedEnd is the end of a loop whose session could not be saved.
func unsavedEnd(err error) Result {
	se := &SaveError{Err: err}
	return Result{Stop: Unsaved, Err: se, Message: se.Error()}
}

// goOn asks the observer whether the loop may go past the per-turn cap,
// and raises the cap if so.
func (l *run) goOn(ctx context.Context) bool {
	asker, ok := l.cfg.Observer.(TurnCapAsker)
	if !ok || l.cfg.TurnCap == nil || ctx.Err() != nil {
		return false
	}
	n := l.cfg.TurnCap.TurnCap()
	if n <= 0 || !asker.AskTurnCap(ctx, n) {
		return false
	}
	l.cfg.TurnCap.ExtendTurnCap(n)
	return true
}

// cancelled is the end of a loop whose ctx is done: the wall-time cap, or
// a cancellation, which is recorded.
func (l *run) cancelled(ctx context.Context) Result {
	cause := context.Cause(ctx)
	if errors.Is(cause, errWallTime) {
		return Result{Stop: WallTime, Err: cause,
			Message: fmt.Sprintf("reached the wall-time limit (--max-wall-time %s)", l.cfg.Caps.MaxWallTime)}
	}
	reason := l.cfg.CancelReason
	if reason == "" {
		reason = "cancelled by the user"
	}
	if cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		reason = cause.Error()
	}
	l.rec.Cancelled(reason)
	return Result{Stop: Cancelled, Err: cause, Message: reason}
}

// stop ends the loop with r, with the counts so far.
func (l *run) stop(r Result) Result {
	if r.Stop == TurnCapReached {
		// The guard's stop reaches the observer only now that the user
		// did not raise the cap.
		l.obs.event(turn.LoopDetected{Guard: r.Guard, Message: r.Message})
	}
	r.Finish, r.Turns, r.Background, r.ToolCalls = l.res.Finish, l.res.Turns, l.res.Background, l.res.ToolCalls
	return r
}

type nopRecorder struct{}

func (nopRecorder) Checkpoint() error { return nil }
func (nopRecorder) Compressed()       {}
func (nopRecorder) Keep([]llm.Part)   {}
func (nopRecorder) Cancelled(string)  {}
func (nopRecorder) Round(inbox.Round) {}
