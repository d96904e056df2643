package loop

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/turn"
)

// script is a fake client: each send gets the next reply's events and
// records what was sent.
type script struct {
	mu      sync.Mutex
	replies [][]turn.Event
	sent    []sent
}

type sent struct {
	parts []llm.Part
	typ   client.SendType
}

func (s *script) SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	s.mu.Lock()
	s.sent = append(s.sent, sent{parts, typ})
	var evs []turn.Event
	if len(s.replies) > 0 {
		evs, s.replies = s.replies[0], s.replies[1:]
	} else {
		evs = []turn.Event{turn.Finished{Reason: llm.FinishStop}}
	}
	s.mu.Unlock()
	return func(yield func(turn.Event) bool) {
		for _, e := range evs {
			if !yield(e) {
				return
			}
		}
	}
}

func call(id string) *turn.ToolCallRequest {
	return &turn.ToolCallRequest{CallID: id, Name: "t", Args: `{}`}
}

// tools answers every call with "ok <id>"; run, when set, runs first.
type tools struct {
	run   func(ctx context.Context, calls []*turn.ToolCallRequest)
	calls int
}

func (t *tools) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	if t.run != nil {
		t.run(ctx, calls)
	}
	t.calls += len(calls)
	var outs []Outcome
	for _, c := range calls {
		if ctx.Err() != nil {
			return outs, ctx.Err()
		}
		outs = append(outs, Outcome{Response: llm.FunctionResponse{ID: c.CallID, Name: c.Name, Output: "ok " + c.CallID}, Args: c.Args})
	}
	return outs, nil
}

// recorder records what the loop asks it to; its checkpoints fail with
// err once fail reaches zero.
type recorder struct {
	log  []string
	err  error
	fail int
}

func (r *recorder) Checkpoint() error {
	r.log = append(r.log, "checkpoint")
	if r.err == nil {
		return nil
	}
	if r.fail--; r.fail >= 0 {
		return nil
	}
	return r.err
}

func (r *recorder) Compressed()             { r.log = append(r.log, "compressed") }
func (r *recorder) Keep(p []llm.Part)       { r.log = append(r.log, "keep "+partsText(p)) }
func (r *recorder) Cancelled(reason string) { r.log = append(r.log, "cancelled "+reason) }
func (r *recorder) Round(x inbox.Round)     { r.log = append(r.log, "round "+x.Text) }

func partsText(ps []llm.Part) string {
	var b []string
	for _, p := range ps {
		switch {
		case p.Response != nil:
			b = append(b, "result:"+p.Response.ID)
		default:
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, ",")
}

func TestToolResultsGoBackUntilTheModelStops(t *testing.T) {
	s := &script{replies: [][]turn.Event{
		{call("a"), call("b"), turn.Finished{Reason: llm.FinishStop}},
		{turn.Content{Text: "done"}, turn.Finished{Reason: llm.FinishStop}},
	}}
	rec := &recorder{}
	res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, Recorder: rec}, Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	if res.Stop != Done || res.Turns != 2 || res.ToolCalls != 2 {
		t.Fatalf("result %+v; want done after 2 turns and 2 calls", res)
	}
	if got := partsText(s.sent[1].parts); got != "result:a,result:b" || s.sent[1].typ != client.ToolResult {
		t.Errorf("second send %q (%v); want both results as tool results", got, s.sent[1].typ)
	}
	if strings.Join(rec.log, ";") != "checkpoint;checkpoint" {
		t.Errorf("recorder saw %q; want a checkpoint per round", rec.log)
	}
}

// A teammate's message that arrives while tools run goes out with their
// results, after them; it is announced and recorded, and its interaction
// ends with the loop's.
func TestTeammateJoinsAfterToolResults(t *testing.T) {
	in := inbox.New()
	ended := false
	s := &script{replies: [][]turn.Event{{call("a"), turn.Finished{}}}}
	tl := &tools{run: func(context.Context, []*turn.ToolCallRequest) {
		in.Post(inbox.Round{Type: client.Teammate, Source: "bob", Text: "from bob", Done: func() { ended = true }})
	}}
	rec := &recorder{}
	for _, at := range []InboxAtEnd{Leave, Take, Wait} {
		s.sent, s.replies, rec.log, ended = nil, [][]turn.Event{{call("a"), turn.Finished{}}}, nil, false
		res := Run(context.Background(), Config{Rounds: s, Tools: tl, Recorder: rec, Inbox: in, AtEnd: at}, Input{Parts: []llm.Part{{Text: "hi"}}})
		if res.Stop != Done || len(s.sent) != 2 {
			t.Fatalf("AtEnd %v: %+v after %d sends", at, res, len(s.sent))
		}
		if got := partsText(s.sent[1].parts); got != "result:a,from bob" {
			t.Errorf("AtEnd %v: second send %q; want the result, then the teammate's message", at, got)
		}
		if !ended || !strings.Contains(strings.Join(rec.log, ";"), "round from bob") {
			t.Errorf("AtEnd %v: ended %v, recorder %q", at, ended, rec.log)
		}
	}
}

// What the loop does with the inbox when the model stops depends on the
// entry: Leave ends, Take sends what is queued, Wait also waits for held
// work.
func TestInboxAtEnd(t *testing.T) {
	for _, tc := range []struct {
		at    InboxAtEnd
		sends int
	}{{Leave, 1}, {Take, 2}, {Wait, 3}} {
		in := inbox.New()
		in.Post(inbox.Round{Type: client.Notification, Source: "job", Text: "queued"})
		release := in.Hold()
		s := &script{replies: [][]turn.Event{
			{turn.Finished{}},
			{turn.Finished{}},
		}}
		obs := &waitObserver{release: func() {
			in.Post(inbox.Round{Type: client.Notification, Source: "job", Text: "late"})
			release()
		}}
		res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, Inbox: in, AtEnd: tc.at, Observer: obs}, Input{Parts: []llm.Part{{Text: "hi"}}})
		if res.Stop != Done || len(s.sent) != tc.sends {
			t.Errorf("AtEnd %v: %+v, %d sends; want %d", tc.at, res, len(s.sent), tc.sends)
		}
		if tc.at == Take && s.sent[1].typ != client.Notification {
			t.Errorf("Take: second send is %v; want the notification", s.sent[1].typ)
		}
	}
}

// waitObserver posts the held work's round when the loop says it waits.
type waitObserver struct{ release func() }

func (w *waitObserver) Event(turn.Event) {}
func (w *waitObserver) WaitingFor(n int) {
	if w.release != nil {
		w.release()
		w.release = nil
	}
}

// asker answers the per-turn cap question.
type asker struct {
	yes    bool
	asked  int
	events []turn.Event
}

func (a *asker) Event(ev turn.Event) { a.events = append(a.events, ev) }
func (a *asker) AskTurnCap(ctx context.Context, n int) bool {
	a.asked = n
	return a.yes
}

type capper struct{ extended int }

func (c *capper) TurnCap() int        { return 7 }
func (c *capper) ExtendTurnCap(n int) { c.extended += n }

func TestTurnCapAsksTheObserver(t *testing.T) {
	capHit := turn.LoopDetected{Guard: string(loopdetect.GuardTurnCap), Message: "cap"}
	for _, yes := range []bool{true, false} {
		s := &script{replies: [][]turn.Event{{call("a"), capHit}}}
		a, c := &asker{yes: yes}, &capper{}
		res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, Observer: a, TurnCap: c}, Input{Parts: []llm.Part{{Text: "hi"}}})
		if a.asked != 7 {
			t.Fatalf("yes=%v: asked for %d more; want 7", yes, a.asked)
		}
		if yes {
			if res.Stop != Done || c.extended != 7 || len(s.sent) != 2 || s.sent[1].typ != client.Hook ||
				!strings.Contains(s.sent[1].parts[0].Text, "allowed another 7 tool calls") {
				t.Errorf("going on: %+v, extended %d, sends %+v", res, c.extended, s.sent)
			}
			continue
		}
		if res.Stop != TurnCapReached || c.extended != 0 || len(s.sent) != 1 {
			t.Errorf("declined: %+v, extended %d, %d sends", res, c.extended, len(s.sent))
		}
		if last, ok := a.events[len(a.events)-1].(turn.LoopDetected); !ok || last.Guard != capHit.Guard {
			t.Errorf("declined: the observer's last event is %#v; want the cap's stop", a.events[len(a.events)-1])
		}
	}
	// Without an asker the cap ends the loop at once.
	s := &script{replies: [][]turn.Event{{capHit}}}
	if res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, TurnCap: &capper{}}, Input{}); res.Stop != TurnCapReached {
		t.Errorf("no asker: %+v; want TurnCapReached", res)
	}
}

// A subagent's loop, started by the parent's tools, counts against the
// parent's caps; reaching one ends both.
func TestSubagentWorkCountsAgainstTheParentsCaps(t *testing.T) {
	var sub Result
	parentTools := &tools{run: func(ctx context.Context, _ []*turn.ToolCallRequest) {
		s := &script{replies: [][]turn.Event{{call("s1"), call("s2")}, {call("s3")}, {call("s4")}}}
		sub = Run(ctx, Config{Rounds: s, Tools: &tools{}, Caps: Caps{MaxToolCalls: 50}}, Input{Parts: []llm.Part{{Text: "task"}}})
	}}
	s := &script{replies: [][]turn.Event{{call("agent")}, {call("more")}}}
	rec := &recorder{}
	res := Run(context.Background(), Config{Rounds: s, Tools: parentTools, Recorder: rec, Caps: Caps{MaxToolCalls: 3}}, Input{Parts: []llm.Part{{Text: "hi"}}})
	if sub.Stop != MaxToolCalls || !strings.Contains(sub.Message, "limit of 3") || !strings.Contains(sub.Message, "subagents' included") {
		t.Errorf("subagent: %+v; want the parent's cap of 3", sub)
	}
	if res.Stop != MaxToolCalls || len(s.sent) != 1 {
		t.Errorf("parent: %+v after %d sends; want it ended by the subagent's use of its cap", res, len(s.sent))
	}
	if !strings.Contains(strings.Join(rec.log, ";"), "keep result:agent") {
		t.Errorf("the agent call's result was not kept: %q", rec.log)
	}
}

// A batch cut short by a cancellation keeps the finished calls' results,
// and the cancellation is recorded after them.
func TestCancelKeepsFinishedResults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &script{replies: [][]turn.Event{{call("a"), call("b")}}}
	tl := &tools{run: func(context.Context, []*turn.ToolCallRequest) {}}
	rec := &recorder{}
	n := 0
	tl.run = func(context.Context, []*turn.ToolCallRequest) {}
	wrapped := toolsFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
		outs, _ := tl.RunTools(ctx, calls[:1])
		n++
		cancel()
		return outs, ctx.Err()
	})
	res := Run(ctx, Config{Rounds: s, Tools: wrapped, Recorder: rec, CancelReason: "cancelled by the client"}, Input{Parts: []llm.Part{{Text: "hi"}}})
	if res.Stop != Cancelled || n != 1 {
		t.Fatalf("%+v; want cancelled", res)
	}
	if got := strings.Join(rec.log, ";"); got != "checkpoint;keep result:a;cancelled cancelled by the client" {
		t.Errorf("recorder saw %q", got)
	}
}

type toolsFunc func(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error)

func (f toolsFunc) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	return f(ctx, calls)
}

// A cancellation with a cause of its own is recorded with the cause's
// words.
func TestCancelCauseIsTheReason(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the SDK denied t: no"))
	rec := &recorder{}
	res := Run(ctx, Config{Rounds: &script{}, Tools: &tools{}, Recorder: rec}, Input{})
	if res.Stop != Cancelled || strings.Join(rec.log, ";") != "cancelled the SDK denied t: no" {
		t.Errorf("%+v, recorder %q", res, rec.log)
	}
}

func TestStructuredOutputEndsTheLoop(t *testing.T) {
	s := &script{replies: [][]turn.Event{{&turn.ToolCallRequest{CallID: "x", Name: "structured_output", Args: `{"a":1}`}}}}
	res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, StructuredOutput: "structured_output"}, Input{})
	if res.Stop != Structured || string(res.Structured) != `{"a":1}` {
		t.Errorf("%+v", res)
	}
}

// A model that answers in plain text when the run needs a structured
// result is told once to call the tool; a second plain answer ends the
// loop with NoStructuredOutput.
func TestPlainAnswerWhereStructuredOutputIsDue(t *testing.T) {
	text := []turn.Event{turn.Content{Text: "42"}, turn.Finished{Reason: llm.FinishStop}}
	for _, tc := range []struct {
		name    string
		replies [][]turn.Event
		want    Stop
	}{
		{"told, then calls it", [][]turn.Event{text, {&turn.ToolCallRequest{CallID: "x", Name: "structured_output", Args: `{"a":1}`}}}, Structured},
		{"told, answers in text again", [][]turn.Event{text, text}, NoStructuredOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{replies: tc.replies}
			res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, StructuredOutput: "structured_output"},
				Input{Parts: []llm.Part{{Text: "compute"}}, Type: client.UserQuery})
			if res.Stop != tc.want || len(s.sent) != 2 {
				t.Fatalf("stop %v after %d requests: %+v", res.Stop, len(s.sent), res)
			}
			if s.sent[1].typ != client.Hook || !strings.Contains(partsText(s.sent[1].parts), "structured_output") {
				t.Errorf("the reminder was %v %q", s.sent[1].typ, partsText(s.sent[1].parts))
			}
			if tc.want == NoStructuredOutput && !strings.Contains(res.Message, "no structured result") {
				t.Errorf("message %q", res.Message)
			}
		})
	}
}

// A checkpoint that fails ends the loop at that round boundary: the calls
// the unsaved reply asks for do not run, and the end says why.
func TestUnsavedSessionStopsBeforeTheCalls(t *testing.T) {
	full := errors.New("session: write x.jsonl: no space left on device")
	s := &script{replies: [][]turn.Event{
		{call("a"), turn.Finished{Reason: llm.FinishToolCalls}},
		{call("b"), turn.Finished{Reason: llm.FinishToolCalls}},
		{turn.Content{Text: "done"}, turn.Finished{Reason: llm.FinishStop}},
	}}
	tl := &tools{}
	rec := &recorder{err: full, fail: 1}
	res := Run(context.Background(), Config{Rounds: s, Tools: tl, Recorder: rec}, Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	var se *SaveError
	if res.Stop != Unsaved || !errors.As(res.Err, &se) || !errors.Is(res.Err, full) || !res.Failed() {
		t.Fatalf("result %+v; want Unsaved with a *SaveError wrapping the write's error", res)
	}
	if tl.calls != 1 || len(s.sent) != 2 || res.Turns != 2 || res.ToolCalls != 1 {
		t.Errorf("%d calls ran over %d sends (result %+v); want the first call only, and no third send", tl.calls, len(s.sent), res)
	}
	if !strings.Contains(res.Message, "could not be saved") || !strings.Contains(res.Message, "no space left on device") {
		t.Errorf("message %q", res.Message)
	}
}

// The structured result is not reported as a success when the results it
// keeps could not be saved.
func TestUnsavedStructuredResultIsAnError(t *testing.T) {
	s := &script{replies: [][]turn.Event{{&turn.ToolCallRequest{CallID: "s", Name: "out", Args: `{"x":1}`}, turn.Finished{}}}}
	rec := &recorder{err: errors.New("no space left on device"), fail: 1}
	res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, Recorder: rec, StructuredOutput: "out"},
		Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	if res.Stop != Unsaved {
		t.Fatalf("result %+v; want Unsaved", res)
	}
}

// failedRecorder is a recorder whose writes failed already.
type failedRecorder struct {
	recorder
	err error
}

func (r *failedRecorder) Err() error { return r.err }

// A loop whose session can no longer be saved sends nothing.
func TestUnsavedSessionSendsNothing(t *testing.T) {
	s := &script{}
	rec := &failedRecorder{err: errors.New("no space left on device")}
	res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, Recorder: rec}, Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	if res.Stop != Unsaved || len(s.sent) != 0 || res.Turns != 0 {
		t.Fatalf("result %+v after %d sends; want Unsaved before any", res, len(s.sent))
	}
}
