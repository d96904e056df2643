package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/loop"
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
		// unsaved: the session could not be saved, and unsent, before
		// the prompt went out.
		unsaved, unsent bool
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
	// roundMsg shows a round no user typed as it starts.
	roundMsg struct{ r inbox.Round }
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
	// denied is the reason the user typed when denying the call.
	denied string
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
	if s, ok := u.cfg.Session.(AlwaysScoper); ok {
		rules, desc := s.AlwaysScope(c)
		if len(rules) == 0 {
			desc = "" // nothing can be remembered
		}
		msg.scope, msg.hasScope = AlwaysScope{Rules: rules, Desc: desc}, true
	}
	u.send(msg)
	select {
	case <-ctx.Done():
		// No one waits for this answer any more: the dialog goes.
		u.send(withdrawMsg(reply))
		return scheduler.Decision{}, ctx.Err()
	case d := <-reply:
		return d, nil
	}
}

// driver runs the loop for one interaction at a time, off the program's
// goroutine, and reports everything as messages: the model only renders
// and decides, it never waits on the network or a tool.
type driver struct {
	rounds Rounds
	tools  ToolRunner
	send   func(tea.Msg)
	cfg    Config
	wg     sync.WaitGroup
	// steer holds the messages the user sends now (steer.go).
	steer *steerBox
}

// start runs the interaction id in a new goroutine.
func (d *driver) start(ctx context.Context, id int, in loop.Input) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.interact(ctx, id, in)
	}()
}

// wait returns when no interaction runs any more.
func (d *driver) wait() { d.wg.Wait() }

// interact runs the loop from in and ends the interaction with a doneMsg.
// The inbox's rounds other than teammates' messages wait for the UI to be
// idle (inbox.go), so typed input goes first.
func (d *driver) interact(ctx context.Context, id int, in loop.Input) {
	done := doneMsg{id: id}
	defer func() {
		// A bug in a lower layer must not leave the UI busy for ever nor
		// kill the process with the terminal in raw mode.
		if r := recover(); r != nil {
			done.err = fmt.Errorf("internal error: %v", r)
		}
		d.send(done)
	}()
	res := loop.Run(ctx, loop.Config{
		Rounds: d.rounds, Tools: d.tools, Observer: &interaction{d: d, id: id},
		Recorder: d.cfg.Recorder, Inbox: d.cfg.Inbox, AtEnd: loop.Leave, TurnCap: d.cfg.TurnCap,
		CancelReason: "cancelled by the user", Steer: d.steer,
	}, in)
	switch {
	case res.Stop == loop.Cancelled || ctx.Err() != nil:
		done.cancelled = true
	case res.Stop == loop.ToolError:
		done.err = fmt.Errorf("running tools: %w", res.Err)
	case res.Stop == loop.Unsaved:
		done.err = fmt.Errorf("%w: ply stopped before running more tools; once PLY_HOME can be written again, quit and resume with ply --continue", res.Err)
		done.unsaved, done.unsent = true, res.Turns == 0
	}
}

// interaction is the loop's Observer for one interaction: it turns what
// the loop shows into the program's messages.
type interaction struct {
	d  *driver
	id int
}

// Event forwards one event of the running round, in stream order.
func (i *interaction) Event(ev turn.Event) { i.d.send(eventMsg{id: i.id, ev: ev}) }

// BatchEnded settles the batch's cards: its results are about to be sent
// back.
func (i *interaction) BatchEnded(_ []loop.Outcome, err error) {
	i.d.send(toolsDoneMsg{id: i.id, err: err})
}

// BatchStarting has nothing to show: the scheduler's updates draw the
// cards.
func (i *interaction) BatchStarting([]*turn.ToolCallRequest) {}

// Announce shows where a round no user typed came from.
func (i *interaction) Announce(r inbox.Round) { i.d.send(roundMsg{r: r}) }

// AskTurnCap asks the user, through the approval dialog, whether the
// interaction may make another n tool calls. It reports false when the
// user declines or the interaction ends.
func (i *interaction) AskTurnCap(ctx context.Context, n int) bool {
	// Cards of the reply that hit the cap never run: settle them.
	i.d.send(toolsDoneMsg{id: i.id})
	reply := make(chan scheduler.Decision, 1)
	i.d.send(approvalMsg{reply: reply, call: callView{
		name: fmt.Sprintf("another %d tool calls", n),
		args: mustJSONString(map[string]string{
			"why": fmt.Sprintf("The model has made %d tool calls for this prompt, the per-turn cap (model.maxToolCallsPerTurn).", n),
		}),
	}})
	select {
	case <-ctx.Done():
		return false
	case dec := <-reply:
		return dec.Outcome == scheduler.OutcomeAllowOnce || dec.Outcome == scheduler.OutcomeAllowAlways
	}
}

func mustJSONString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
