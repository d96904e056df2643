package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

// TestBatching checks the batch cut and that it is honoured at run time:
// parallel reads overlap, an edit overlaps nothing.
func TestBatching(t *testing.T) {
	rec := newRecorder()
	reg := tools.NewRegistry(
		rec.tool("read", tools.KindRead, 60*time.Millisecond),
		rec.tool("edit", tools.KindEdit, 30*time.Millisecond),
	)
	s := New(reg, WithPolicy(YOLO{}))
	calls := mustRun(t, s, req("read", "r1"), req("read", "r2"), req("edit", "e1"), req("read", "r3"))

	for _, c := range calls {
		if c.State() != StateSuccess {
			t.Fatalf("%s: state %s, output %q", c.CallID, c.State(), c.Response().Output)
		}
	}
	r1, r2, e1, r3 := rec.span(t, "r1"), rec.span(t, "r2"), rec.span(t, "e1"), rec.span(t, "r3")
	if !r1.overlaps(r2) {
		t.Errorf("r1 %v and r2 %v should run in parallel", r1, r2)
	}
	for tag, sp := range map[string]span{"r1": r1, "r2": r2, "r3": r3} {
		if sp.overlaps(e1) {
			t.Errorf("edit %v overlaps %s %v; an unsafe call must run alone", e1, tag, sp)
		}
	}
	if !e1.start.After(r1.end) || !e1.start.After(r2.end) || !r3.start.After(e1.end) {
		t.Errorf("batches out of order: r1 %v r2 %v e1 %v r3 %v", r1, r2, e1, r3)
	}
}

func TestBatchesCut(t *testing.T) {
	read := &fakeTool{name: "read", kind: tools.KindRead}
	edit := &fakeTool{name: "edit", kind: tools.KindEdit}
	shell := &safeTool{fakeTool: &fakeTool{name: "shell", kind: tools.KindExecute},
		safe: func(args json.RawMessage) bool { return strings.Contains(string(args), "ls") }}
	panicky := &safeTool{fakeTool: &fakeTool{name: "panicky", kind: tools.KindRead},
		safe: func(json.RawMessage) bool { panic("boom") }}
	mk := func(tool tools.Tool, args string, st State) *Call {
		return &Call{Request: Request{Name: tool.Name()}, Tool: tool, Params: json.RawMessage(args), state: st}
	}
	tests := []struct {
		name  string
		calls []*Call
		want  []string // one entry per batch: "P:n" parallel of n, "S" alone
	}{
		{"read read edit read", []*Call{mk(read, "", StateScheduled), mk(read, "", StateScheduled), mk(edit, "", StateScheduled), mk(read, "", StateScheduled)}, []string{"P2", "S", "P1"}},
		{"edits run alone", []*Call{mk(edit, "", StateScheduled), mk(edit, "", StateScheduled)}, []string{"S", "S"}},
		{"shell read-only joins reads", []*Call{mk(read, "", StateScheduled), mk(shell, `{"command":"ls"}`, StateScheduled), mk(shell, `{"command":"rm"}`, StateScheduled)}, []string{"P2", "S"}},
		{"panic in check means unsafe", []*Call{mk(read, "", StateScheduled), mk(panicky, "", StateScheduled), mk(read, "", StateScheduled)}, []string{"P1", "S", "P1"}},
		{"terminal calls are skipped", []*Call{mk(read, "", StateScheduled), mk(edit, "", StateError), mk(read, "", StateScheduled)}, []string{"P2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, b := range batches(tt.calls) {
				if b.parallel {
					got = append(got, "P"+string(rune('0'+len(b.calls))))
				} else {
					got = append(got, "S")
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("batches = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestResultsInCallOrder: later calls finish first, the results still
// come back in call order.
func TestResultsInCallOrder(t *testing.T) {
	rec := newRecorder()
	var reqs []Request
	var ts []tools.Tool
	tags := []string{"a", "b", "c", "d", "e"}
	for i, tag := range tags {
		name := "read_" + tag
		ts = append(ts, rec.tool(name, tools.KindRead, time.Duration(len(tags)-i)*40*time.Millisecond))
		reqs = append(reqs, req(name, tag))
	}
	s := New(tools.NewRegistry(ts...))
	calls := mustRun(t, s, reqs...)
	for i, c := range calls {
		if c.CallID != tags[i] || c.Response().ID != tags[i] || c.Response().Output != "done "+tags[i] {
			t.Errorf("call %d = %s %+v, want %s", i, c.CallID, c.Response(), tags[i])
		}
	}
	if first, last := rec.span(t, "a"), rec.span(t, "e"); !last.end.Before(first.end) {
		t.Errorf("the test needs the last call to finish first: a ended %v, e ended %v", first.end, last.end)
	}
}

func TestConcurrencyCap(t *testing.T) {
	tests := []struct {
		name string
		env  string
		opts []Option
		want int
	}{
		{"cap 1", "", []Option{WithMaxConcurrency(1)}, 1},
		{"cap 3", "", []Option{WithMaxConcurrency(3)}, 3},
		{"from env", "2", []Option{MaxConcurrencyFromEnv()}, 2},
		{"bad env keeps default", "zero", []Option{MaxConcurrencyFromEnv()}, DefaultMaxConcurrency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvMaxConcurrency, tt.env)
			rec := newRecorder()
			s := New(tools.NewRegistry(rec.tool("read", tools.KindRead, 50*time.Millisecond)), tt.opts...)
			var reqs []Request
			for i := range 12 {
				reqs = append(reqs, req("read", string(rune('a'+i))))
			}
			mustRun(t, s, reqs...)
			if rec.peak != tt.want {
				t.Errorf("peak concurrency = %d, want %d", rec.peak, tt.want)
			}
		})
	}
}

// TestCancelMidBatch: cancelling stops running tools, never starts the
// rest, and every call still comes back with a response.
func TestCancelMidBatch(t *testing.T) {
	rec := newRecorder()
	started := make(chan struct{}, 10)
	slow := rec.tool("read", tools.KindRead, time.Minute)
	inner := slow.run
	slow.run = func(ctx context.Context, tag string, out tools.Output) (tools.Result, error) {
		started <- struct{}{}
		return inner(ctx, tag, out)
	}
	s := New(tools.NewRegistry(slow, rec.tool("edit", tools.KindEdit, 0)), WithPolicy(YOLO{}), WithMaxConcurrency(2))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		<-started
		cancel()
	}()
	calls, err := s.Run(ctx, []Request{req("read", "r1"), req("read", "r2"), req("read", "r3"), req("read", "r4"), req("edit", "e1")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	for i, c := range calls {
		if c.State() != StateCancelled || c.Response().Output != CancelledMessage || !c.Response().IsError {
			t.Errorf("%s: state %s, response %+v", c.CallID, c.State(), c.Response())
		}
		_, execStart, _ := c.Times()
		if ran := !execStart.IsZero(); ran != (i < 2) {
			t.Errorf("%s: started = %v, want %v", c.CallID, ran, i < 2)
		}
	}
}

// TestToolFailures: panics and Go errors become error results; the
// batch's other calls are unaffected.
func TestToolFailures(t *testing.T) {
	tests := []struct {
		name      string
		run       func(context.Context, string, tools.Output) (tools.Result, error)
		state     State
		errorType string
		output    string
	}{
		{"panic", func(context.Context, string, tools.Output) (tools.Result, error) { panic("kaboom") },
			StateError, ErrorTypePanic, `Error: Tool "t" crashed (kaboom).`},
		{"go error", func(context.Context, string, tools.Output) (tools.Result, error) {
			return tools.Result{}, errors.New("disk on fire")
		},
			StateError, ErrorTypeExecution, `Error: Tool "t" failed: disk on fire`},
		{"wrapped cancellation", func(context.Context, string, tools.Output) (tools.Result, error) {
			return tools.Result{}, errors.Join(errors.New("killed"), context.Canceled)
		}, StateCancelled, "", CancelledMessage},
		{"error result", func(context.Context, string, tools.Output) (tools.Result, error) {
			return tools.Errorf("FILE_NOT_FOUND", "no such file: %s", "x"), nil
		}, StateError, "FILE_NOT_FOUND", "Error: no such file: x"},
		{"empty output", func(context.Context, string, tools.Output) (tools.Result, error) { return tools.Result{}, nil },
			StateSuccess, "", EmptyOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := &fakeTool{name: "t", kind: tools.KindRead, run: tt.run}
			good := &fakeTool{name: "ok", kind: tools.KindRead}
			calls := mustRun(t, New(tools.NewRegistry(bad, good)), req("t", "1"), req("ok", "2"))
			c := calls[0]
			if c.State() != tt.state || c.ErrorType() != tt.errorType || !strings.HasPrefix(c.Response().Output, tt.output) {
				t.Errorf("got state %s type %q output %q; want %s %q %q", c.State(), c.ErrorType(), c.Response().Output, tt.state, tt.errorType, tt.output)
			}
			if calls[1].State() != StateSuccess {
				t.Errorf("sibling call: state %s", calls[1].State())
			}
		})
	}
}

// TestTerminalStateIsFinal races many transitions on one call: exactly
// one finish wins, and nothing moves the call out of its terminal state.
func TestTerminalStateIsFinal(t *testing.T) {
	var mu sync.Mutex
	var terminalEvents int
	c := &Call{Request: Request{CallID: "x", Name: "t"}, notify: func(c *Call) {
		if c.State().Terminal() {
			mu.Lock()
			terminalEvents++
			mu.Unlock()
		}
	}}
	c.setState(StateExecuting)
	var wg sync.WaitGroup
	wins := make(chan State, 300)
	for i := range 100 {
		wg.Go(func() {
			st := []State{StateSuccess, StateError, StateCancelled}[i%3]
			if c.finish(st, c.Response(), "", "") {
				wins <- st
			}
		})
		wg.Go(func() { c.setState(StateExecuting) })
		wg.Go(func() {
			if c.cancel("") {
				wins <- StateCancelled
			}
		})
	}
	wg.Wait()
	close(wins)
	var won []State
	for w := range wins {
		won = append(won, w)
	}
	if len(won) != 1 || c.State() != won[0] {
		t.Fatalf("winners = %v, final state %s; want exactly one winner, final", won, c.State())
	}
	if terminalEvents != 1 {
		t.Errorf("terminal updates published = %d, want 1", terminalEvents)
	}
	if c.setState(StateScheduled) || c.fail("X", "y") || c.State() == StateScheduled {
		t.Errorf("transition out of terminal state %s was accepted", c.State())
	}
}

// TestHooks: OnUpdate sees every state in order; the live output sink
// receives what the tool writes.
func TestHooks(t *testing.T) {
	var mu sync.Mutex
	var states []State
	var live bytes.Buffer
	tool := &fakeTool{name: "sh", kind: tools.KindExecute, run: func(_ context.Context, _ string, out tools.Output) (tools.Result, error) {
		_, _ = out.Write([]byte("line 1\n"))
		return tools.Result{Output: "line 1\n"}, nil
	}}
	s := New(tools.NewRegistry(tool),
		WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) { return Decision{Outcome: OutcomeAllowOnce}, nil })),
		WithOnUpdate(func(c *Call) {
			mu.Lock()
			states = append(states, c.State())
			mu.Unlock()
		}),
		WithLiveOutput(func(*Call) tools.Output { return &live }))
	mustRun(t, s, req("sh", "1"))
	want := []State{StateValidating, StateAwaitingApproval, StateScheduled, StateExecuting, StateSuccess}
	if !slices.Equal(states, want) {
		t.Errorf("states = %v, want %v", states, want)
	}
	if live.String() != "line 1\n" {
		t.Errorf("live output = %q", live.String())
	}
}

// A call stopped while it ran keeps what it printed for the model, and
// says who stopped it: the user, or the cause its context names.
func TestCancelKeepsPartialOutput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
		want  string
	}{
		{"by the user", nil, "Tool call was cancelled by the user. What it printed before it stopped:\nline 1\nline 2"},
		{"by a limit", errors.New("wall-time limit reached"), "Tool call was stopped: wall-time limit reached. What it printed before it stopped:\nline 1\nline 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			tool := &fakeTool{name: "sh", kind: tools.KindExecute, run: func(ctx context.Context, _ string, _ tools.Output) (tools.Result, error) {
				close(started)
				<-ctx.Done()
				return tools.Result{Output: "line 1\nline 2", IsError: true}, ctx.Err()
			}}
			s := New(tools.NewRegistry(tool), WithPolicy(YOLO{}))
			ctx, cancel := context.WithCancelCause(context.Background())
			go func() {
				<-started
				cancel(tc.cause)
			}()
			calls, _ := s.Run(ctx, []Request{req("sh", "1")})
			if r := calls[0].Response(); calls[0].State() != StateCancelled || r.Output != tc.want {
				t.Fatalf("state %s, output %q\nwant %q", calls[0].State(), r.Output, tc.want)
			}
		})
	}
}
