package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// Messages the loop and the scheduler send into the program. Each carries
// the interaction it belongs to, so that a late message of a cancelled
// interaction cannot touch the next one's state.
type (
	// eventMsg is one event of the running round, in stream order.
	eventMsg struct {
		id int
		ev turn.Event
	}
	// toolsDoneMsg follows a batch's last state change: its results are
	// about to be sent back.
	toolsDoneMsg struct {
		id  int
		err error
	}
	// doneMsg ends an interaction: the model asked for no tool, or it
	// failed, or the user cancelled it.
	doneMsg struct {
		id        int
		err       error
		cancelled bool
	}
	// callMsg is a snapshot of a call after a state change. The scheduler
	// mutates its *Call concurrently, so the model never holds one.
	callMsg struct{ call callView }
	// approvalMsg asks the user about one call; the answer goes to reply,
	// which has room for it, so the model never blocks.
	approvalMsg struct {
		call  callView
		reply chan scheduler.Decision
		// scope is what "allow always" would allow, when hasScope.
		scope    AlwaysScope
		hasScope bool
		// from names who asks when not the main loop (inbox.go).
		from string
	}
	noticeMsg struct{ text string }
)

// callView is what the UI shows of a call.
type callView struct {
	id, name, args string
	state          scheduler.State
	output         string
	errorType      string
	display        string
	duration       time.Duration
	// Kept by the UI across snapshots: the running command's output tail
	// and its size, and when the card saw the call start executing.
	live      string
	liveTotal int
	started   time.Time
}

func viewOf(c *scheduler.Call) callView {
	v := callView{id: c.CallID, name: c.Name, args: c.Args, state: c.State(),
		errorType: c.ErrorType(), display: c.Display(), duration: c.Duration()}
	if v.state.Terminal() {
		v.output = c.Response().Output
	}
	return v
}

// OnUpdate is the scheduler's state-change callback (scheduler.WithOnUpdate).
func (u *UI) OnUpdate(c *scheduler.Call) { u.send(callMsg{call: viewOf(c)}) }

// Approve asks the user whether c may run: it shows the dialog and waits
// for the answer or for ctx. It implements scheduler.Approver.
func (u *UI) Approve(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error) {
	u.mu.Lock()
	running := u.prog != nil
	u.mu.Unlock()
	if !running {
		return scheduler.Decision{}, fmt.Errorf("the interactive UI is not running")
	}
	reply := make(chan scheduler.Decision, 1)
	msg := approvalMsg{call: viewOf(c), reply: reply, from: askerOf(ctx)}
	if u.cfg.AlwaysScope != nil {
		scope, ok := u.cfg.AlwaysScope(c)
		if !ok {
			scope = AlwaysScope{} // nothing can be remembered
		}
		msg.scope, msg.hasScope = scope, true
	}
	u.send(msg)
	select {
	case <-ctx.Done():
		return scheduler.Decision{}, ctx.Err()
	case d := <-reply:
		return d, nil
	}
}

// driver turns the loop for one interaction at a time, off the program's
// goroutine, and reports everything as messages: the model only renders
// and decides, it never waits on the network or a tool.
type driver struct {
	rounds Rounds
	tools  ToolRunner
	send   func(tea.Msg)
	cfg    Config
	wg     sync.WaitGroup
}

// start runs the interaction id in a new goroutine.
func (d *driver) start(ctx context.Context, id int, parts []llm.Part, typ client.SendType) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.interact(ctx, id, parts, typ)
	}()
}

// wait returns when no interaction runs any more.
func (d *driver) wait() { d.wg.Wait() }

// interact is headless's loop, event-driven: ask, forward every event,
// run the round's calls, send their results back, until a round asks for
// no tool.
func (d *driver) interact(ctx context.Context, id int, parts []llm.Part, typ client.SendType) {
	done := doneMsg{id: id}
	defer func() {
		// A bug in a lower layer must not leave the UI busy for ever nor
		// kill the process with the terminal in raw mode.
		if r := recover(); r != nil {
			done.err = fmt.Errorf("internal error: %v", r)
		}
		if ctx.Err() != nil {
			done.cancelled = true
			if d.cfg.OnCancel != nil {
				d.cfg.OnCancel("cancelled by the user")
			}
		}
		d.send(done)
	}()
	for {
		calls, stop := d.round(ctx, id, parts, typ)
		if l, ok := stop.(turn.LoopDetected); ok && l.Guard == string(loopdetect.GuardTurnCap) && ctx.Err() == nil {
			if d.goOn(ctx, id) {
				// The reply that hit the cap ran none of its calls (the
				// chat keeps no call of an abandoned reply): say so.
				parts, typ = []llm.Part{{Text: fmt.Sprintf(capGoOn, d.cfg.TurnCap)}}, client.Hook
				continue
			}
			d.send(eventMsg{id: id, ev: l})
			return
		}
		if stop != nil || ctx.Err() != nil {
			return
		}
		if d.cfg.Checkpoint != nil {
			// The reply and the calls it asks for are on disk before a
			// tool runs: a crash in a tool leaves a resumable session.
			d.cfg.Checkpoint()
		}
		if len(calls) == 0 {
			return
		}
		resps, err := d.tools.RunTools(ctx, calls)
		d.send(toolsDoneMsg{id: id, err: err})
		parts = make([]llm.Part, len(resps))
		for i := range resps {
			parts[i] = llm.Part{Response: &resps[i]}
		}
		if err != nil || ctx.Err() != nil {
			// The interaction ends here, but the calls that finished
			// keep their real results.
			if len(parts) > 0 && d.cfg.KeepResults != nil {
				d.cfg.KeepResults(parts)
			}
			if ctx.Err() == nil {
				done.err = fmt.Errorf("running tools: %w", err)
			}
			return
		}
		typ = client.ToolResult
	}
}

// round runs one round-trip and returns its calls; stop is the event
// after which no tool may run (an error, a loop, a cancellation), nil when
// the round ended normally. The per-turn cap's LoopDetected is not
// forwarded when the user may be asked to go on (see goOn).
func (d *driver) round(ctx context.Context, id int, parts []llm.Part, typ client.SendType) (calls []*turn.ToolCallRequest, stop turn.Event) {
	for ev := range d.rounds.SendMessageStream(ctx, parts, typ) {
		if l, ok := ev.(turn.LoopDetected); ok && l.Guard == string(loopdetect.GuardTurnCap) && d.cfg.ExtendTurnCap != nil {
			return nil, l
		}
		d.send(eventMsg{id: id, ev: ev})
		switch e := ev.(type) {
		case *turn.ToolCallRequest:
			calls = append(calls, e)
		case turn.Retry:
			// The failed attempt's calls are not the retry's.
			calls = nil
		case turn.ChatCompressed:
			if d.cfg.OnCompressed != nil {
				d.cfg.OnCompressed()
			}
		case turn.LoopDetected, turn.UserCancelled, turn.Error:
			return nil, ev
		}
	}
	return calls, nil
}

// capGoOn is the prompt that resumes an interaction past the per-turn cap.
const capGoOn = "The user allowed another %d tool calls for this request. Go on where you stopped; your last reply's tool calls were not run."

// goOn asks the user, through the approval dialog, whether the
// interaction may make another TurnCap tool calls, and raises the cap if
// so. It reports false when the user declines or the interaction ends.
func (d *driver) goOn(ctx context.Context, id int) bool {
	if d.cfg.ExtendTurnCap == nil || d.cfg.TurnCap <= 0 {
		return false
	}
	// Cards of the reply that hit the cap never run: settle them.
	d.send(toolsDoneMsg{id: id})
	reply := make(chan scheduler.Decision, 1)
	d.send(approvalMsg{reply: reply, call: callView{
		name: fmt.Sprintf("another %d tool calls", d.cfg.TurnCap),
		args: mustJSONString(map[string]string{
			"why": fmt.Sprintf("The model has made %d tool calls for this prompt, the per-turn cap (model.maxToolCallsPerTurn).", d.cfg.TurnCap),
		}),
	}})
	select {
	case <-ctx.Done():
		return false
	case dec := <-reply:
		if dec.Outcome != scheduler.OutcomeAllowOnce && dec.Outcome != scheduler.OutcomeAllowAlways {
			return false
		}
	}
	d.cfg.ExtendTurnCap(d.cfg.TurnCap)
	return true
}

func mustJSONString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
