package tui

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// roundsFunc scripts the client: one function call per round.
type roundsFunc func(ctx context.Context, parts []llm.Part, typ client.SendType) []turn.Event

func (f roundsFunc) SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	return func(yield func(turn.Event) bool) {
		for _, ev := range f(ctx, parts, typ) {
			if !yield(ev) {
				return
			}
		}
	}
}

// record is a loop.Recorder that keeps what it is told.
type record struct {
	mu      sync.Mutex
	kept    []llm.Part
	cancels []string
	rounds  []string
	// fail is every checkpoint's error; failed, the writer's error once
	// a checkpoint failed.
	fail, failed error
}

func (r *record) Checkpoint() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		r.failed = r.fail
	}
	return r.fail
}

func (r *record) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *record) Compressed() {}

func (r *record) Keep(p []llm.Part) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = append(r.kept, p...)
}

func (r *record) Cancelled(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancels = append(r.cancels, reason)
}

func (r *record) Round(rd inbox.Round) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, rd.Source)
}

// toolsFunc is a ToolRunner whose calls all ran (none was denied).
type toolsFunc func(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error)

func (f toolsFunc) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]loop.Outcome, error) {
	resps, err := f(ctx, calls)
	outs := make([]loop.Outcome, len(resps))
	for i, r := range resps {
		outs[i] = loop.Outcome{Response: r}
	}
	return outs, err
}

// harness runs the model without a terminal: the driver's messages go to
// a channel the test feeds into Update, as Bubble Tea would.
type harness struct {
	t    *testing.T
	m    *model
	msgs chan tea.Msg
}

func newHarness(t *testing.T, rounds Rounds, tools ToolRunner) *harness {
	h := &harness{t: t, msgs: make(chan tea.Msg, 256)}
	cfg := Config{Model: "test-model", PermissionMode: "default", NoColor: true, Width: 80, Height: 24}
	h.m = newModel(cfg, &driver{rounds: rounds, tools: tools, cfg: cfg, send: func(m tea.Msg) { h.msgs <- m }})
	h.m.keep = true
	h.m.Init()
	t.Cleanup(func() {
		h.m.cancelRunning()
		h.m.drv.wait()
	})
	return h
}

func (h *harness) update(msg tea.Msg) { h.m.Update(msg) }

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) press(code rune, mod tea.KeyMod) { h.update(tea.KeyPressMsg{Code: code, Mod: mod}) }

// pumpUntil feeds the driver's messages into Update until stop accepts one.
func (h *harness) pumpUntil(stop func(tea.Msg) bool) {
	h.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case msg := <-h.msgs:
			h.update(msg)
			if stop(msg) {
				return
			}
		case <-timeout:
			h.t.Fatalf("timed out; view:\n%s", h.view())
		}
	}
}

func isDone(msg tea.Msg) bool { _, ok := msg.(doneMsg); return ok }

func (h *harness) view() string { return h.m.View().Content }

func (h *harness) printed() string { return strings.Join(h.m.printed, "\n") }

func TestStreamingText(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.md = newMarkdown(false) // styled: the asterisks must go
	h.m.busy, h.m.id = true, 1
	h.update(eventMsg{id: 1, ev: turn.Thought{Text: "let me think about it"}})
	if !strings.Contains(h.view(), "thinking") {
		t.Fatalf("no thinking indicator:\n%s", h.view())
	}
	for _, chunk := range []string{"Hello", ", **wor", "ld**"} {
		h.update(eventMsg{id: 1, ev: turn.Content{Text: chunk}})
	}
	if v := h.view(); !strings.Contains(v, "Hello, ") || !strings.Contains(v, "world") || strings.Contains(v, "**") {
		t.Fatalf("streamed text not shown live, rendered:\n%s", v)
	}
	if !strings.Contains(h.printed(), "thought (5 words)") {
		t.Fatalf("the thought was not committed, folded, before the reply:\n%s", h.printed())
	}
	before := len(h.m.printed)
	h.update(eventMsg{id: 1, ev: turn.Finished{Reason: llm.FinishStop, Usage: &llm.Usage{InputTokens: 1200, OutputTokens: 7}}})
	if got := len(h.m.printed) - before; got != 1 {
		t.Fatalf("finishing committed %d blocks, want the reply's open line", got)
	}
	p := h.printed()
	if !strings.Contains(p, "Hello") || !strings.Contains(p, "world") || strings.Contains(p, "**") {
		t.Fatalf("committed conversation wrong (markdown not rendered?):\n%s", p)
	}
	if strings.Contains(h.view(), "Hello") {
		t.Fatalf("finished reply still in the live area:\n%s", h.view())
	}
	if v := h.view(); !strings.Contains(v, "1.2k in / 7 out") {
		t.Fatalf("footer lacks usage:\n%s", v)
	}
	// A stale interaction's event is ignored.
	h.update(eventMsg{id: 0, ev: turn.Content{Text: "stale"}})
	if strings.Contains(h.view(), "stale") {
		t.Fatal("an old interaction's event was shown")
	}
}

func TestToolCardStates(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	args := `{"file_path":"a.go"}`
	h.update(eventMsg{id: 1, ev: &turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: args}})
	if v := h.view(); !strings.Contains(v, "read_file a.go waiting") {
		t.Fatalf("no pending card:\n%s", v)
	}
	for st, words := range map[scheduler.State]string{scheduler.StateValidating: "checking", scheduler.StateScheduled: "queued", scheduler.StateExecuting: "running"} {
		h.update(callMsg{call: callView{id: "c1", name: "read_file", state: st}})
		if v := h.view(); !strings.Contains(v, "read_file a.go "+words) {
			t.Fatalf("card not %s:\n%s", st, v)
		}
	}
	h.update(callMsg{call: callView{id: "c1", name: "read_file", state: scheduler.StateSuccess,
		output: "line one\nline two\nline three", duration: 42 * time.Millisecond}})
	if v := h.view(); !strings.Contains(v, "done · 42ms") || !strings.Contains(v, "line one (+2 lines)") {
		t.Fatalf("finished card wrong:\n%s", v)
	}
	h.update(eventMsg{id: 1, ev: &turn.ToolCallRequest{CallID: "c2", Name: "edit", Args: `{"file_path":"b.go"}`}})
	h.update(callMsg{call: callView{id: "c2", name: "edit", state: scheduler.StateError,
		errorType: "EXECUTION_DENIED", output: "not allowed"}})
	if v := h.view(); !strings.Contains(v, "edit b.go denied") || !strings.Contains(v, "⎿ not allowed") || strings.Contains(v, "EXECUTION_DENIED") {
		t.Fatalf("error card wrong:\n%s", v)
	}
	h.update(toolsDoneMsg{id: 1})
	if len(h.m.cards) != 0 || !strings.Contains(h.printed(), "✓ read_file a.go done") || !strings.Contains(h.printed(), "✗ edit b.go denied") {
		t.Fatalf("cards not committed in order:\n%s", h.printed())
	}
}

func TestApprovalRound(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys string
		want scheduler.Decision
	}{
		{"allow once", "y", scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce}},
		{"allow always", "a", scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways}},
		{"deny with reason", "nnot that file", scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: "not that file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.m.busy, h.m.id = true, 1
			reply := make(chan scheduler.Decision, 1)
			h.update(approvalMsg{reply: reply, call: callView{id: "c1", name: "edit", state: scheduler.StateAwaitingApproval,
				args: `{"file_path":"x.go","old_string":"a","new_string":"b"}`}})
			v := h.view()
			for _, want := range []string{"Allow edit?", "file_path: x.go", "1 - a", "1 + b", "y allow once", "edit x.go waiting for approval"} {
				if !strings.Contains(v, want) {
					t.Fatalf("dialog lacks %q:\n%s", want, v)
				}
			}
			h.typeText(tc.keys)
			if tc.want.Outcome == scheduler.OutcomeDeny {
				if !strings.Contains(h.view(), "Reason for denying") {
					t.Fatalf("no reason prompt:\n%s", h.view())
				}
				h.press(tea.KeyEnter, 0)
			}
			select {
			case d := <-reply:
				if d != tc.want {
					t.Fatalf("decision %+v, want %+v", d, tc.want)
				}
			default:
				t.Fatal("no answer")
			}
			if h.m.approval != nil || strings.Contains(h.view(), "Allow edit?") {
				t.Fatalf("dialog still open:\n%s", h.view())
			}
			if h.m.input.Value() != "" {
				t.Fatalf("dialog keys reached the editor: %q", h.m.input.Value())
			}
		})
	}
}

// TestApproverWithoutUI checks that the Approver refuses, rather than
// blocks, when no program runs to show the dialog.
func TestApproverWithoutUI(t *testing.T) {
	if _, err := New(Config{}).Approve(context.Background(), &scheduler.Call{}); err == nil {
		t.Fatal("Approve without a running UI did not fail")
	}
}

func TestCancelWithEsc(t *testing.T) {
	started := make(chan struct{})
	rounds := roundsFunc(func(ctx context.Context, _ []llm.Part, _ client.SendType) []turn.Event {
		close(started)
		<-ctx.Done()
		return []turn.Event{turn.Content{Text: "partial"}, turn.UserCancelled{}}
	})
	rec := &record{}
	h := newHarness(t, rounds, nil)
	h.m.cfg.Recorder = rec
	h.m.drv.cfg.Recorder = rec
	h.typeText("do something long")
	h.press(tea.KeyEnter, 0)
	<-started
	if !h.m.busy || !strings.Contains(h.view(), "working") {
		t.Fatalf("not busy:\n%s", h.view())
	}
	h.press(tea.KeyEscape, 0)
	if !strings.Contains(h.view(), "stopping") {
		t.Fatalf("no stopping state:\n%s", h.view())
	}
	h.pumpUntil(isDone)
	if h.m.busy || !strings.Contains(h.printed(), "cancelled") || len(rec.cancels) != 1 {
		t.Fatalf("busy=%v cancels=%v printed:\n%s", h.m.busy, rec.cancels, h.printed())
	}
	// Ctrl+C twice on the idle, empty prompt quits.
	h.press('c', tea.ModCtrl)
	if !strings.Contains(h.view(), "again to exit") {
		t.Fatalf("first Ctrl+C did not arm:\n%s", h.view())
	}
	if _, cmd := h.m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}); cmd == nil {
		t.Fatal("second Ctrl+C did not quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("second Ctrl+C did not quit")
	}
}

// TestLoopAndTypeAhead runs a tool round through the real driver and
// types a second prompt while the first runs.
func TestLoopAndTypeAhead(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	release := make(chan struct{})
	rounds := roundsFunc(func(ctx context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case typ == client.ToolResult:
			sent = append(sent, "result:"+parts[0].Response.Output)
			return []turn.Event{turn.Content{Text: "read it"}, turn.Finished{Reason: llm.FinishStop}}
		case parts[0].Text == "first":
			sent = append(sent, "first")
			return []turn.Event{&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{}`}, turn.Finished{Reason: llm.FinishToolCalls}}
		default:
			sent = append(sent, parts[0].Text)
			return []turn.Event{turn.Content{Text: "second answer"}, turn.Finished{Reason: llm.FinishStop}}
		}
	})
	tools := toolsFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
		<-release
		return []llm.FunctionResponse{{ID: calls[0].CallID, Name: calls[0].Name, Output: "file body"}}, nil
	})
	h := newHarness(t, rounds, tools)
	h.typeText("first")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(func(msg tea.Msg) bool { e, ok := msg.(eventMsg); _, fin := e.ev.(turn.Finished); return ok && fin })
	h.typeText("second")
	h.press(tea.KeyEnter, 0)
	if len(h.m.queued) != 1 || !strings.Contains(h.view(), "1 queued") {
		t.Fatalf("type-ahead not queued: %v\n%s", h.m.queued, h.view())
	}
	close(release)
	h.pumpUntil(isDone)
	if !h.m.busy {
		t.Fatal("the queued prompt was not sent when the turn ended")
	}
	h.pumpUntil(isDone)
	mu.Lock()
	got := strings.Join(sent, "|")
	mu.Unlock()
	if got != "first|result:file body|second" {
		t.Fatalf("rounds sent %q", got)
	}
	p := h.printed()
	for _, want := range []string{"> first", "read it", "> second", "second answer"} {
		if !strings.Contains(p, want) {
			t.Fatalf("conversation lacks %q:\n%s", want, p)
		}
	}
	if strings.Index(p, "read it") > strings.Index(p, "> second") {
		t.Fatalf("queued prompt shown before the first answer:\n%s", p)
	}
	// History: Up brings back the last prompt.
	h.press(tea.KeyUp, 0)
	if h.m.input.Value() != "second" {
		t.Fatalf("Up gave %q", h.m.input.Value())
	}
}

func TestSlashCommands(t *testing.T) {
	cleared := false
	h := newHarness(t, nil, nil)
	h.m.cfg.Session = struct {
		*session
		Clearer
	}{&session{}, clearFunc(func() error { cleared = true; return nil })}
	h.typeText("/help")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "/clear") {
		t.Fatalf("no help:\n%s", h.printed())
	}
	h.typeText("/clear")
	h.press(tea.KeyEnter, 0)
	if !cleared {
		t.Fatal("/clear did not clear")
	}
	h.typeText("/bogus")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "unknown command /bogus") {
		t.Fatalf("unknown command not reported:\n%s", h.printed())
	}
}

func TestToolErrorEndsInteraction(t *testing.T) {
	rounds := roundsFunc(func(context.Context, []llm.Part, client.SendType) []turn.Event {
		return []turn.Event{&turn.ToolCallRequest{CallID: "c1", Name: "x"}, turn.Finished{}}
	})
	tools := toolsFunc(func(context.Context, []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
		return nil, errors.New("boom")
	})
	h := newHarness(t, rounds, tools)
	h.typeText("go")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	if h.m.busy || !strings.Contains(h.printed(), "running tools: boom") {
		t.Fatalf("busy=%v\n%s", h.m.busy, h.printed())
	}
}

// session is a Session whose controls are what the test sets: mode, when
// unset, is the mode last set ("default" at first); an unset setter or
// compress does nothing.
type session struct {
	mode     func() string
	setMode  func(string) error
	modes    []string
	setModel func(string) error
	compress func(ctx context.Context, focus string) (int, int, bool)
	last     string
}

func (s *session) ID() string { return "test-session" }

func (s *session) Mode() string {
	if s.mode != nil {
		return s.mode()
	}
	if s.last == "" {
		return "default"
	}
	return s.last
}

func (s *session) SetMode(name string) error {
	if s.setMode != nil {
		if err := s.setMode(name); err != nil {
			return err
		}
	}
	s.last = name
	return nil
}

func (s *session) Modes() []string { return s.modes }

func (s *session) SetModel(name string) error {
	if s.setModel == nil {
		return nil
	}
	return s.setModel(name)
}

func (s *session) Compress(ctx context.Context, focus string) (int, int, bool) {
	if s.compress == nil {
		return 0, 0, false
	}
	return s.compress(ctx, focus)
}

// /clear keeps the run's token totals and names the session left; a
// /clear that fails says so and clears nothing.
func TestClearKeepsTotals(t *testing.T) {
	h := newHarness(t, nil, nil)
	fail := false
	h.m.cfg.Session = struct {
		*session
		Clearer
	}{&session{}, clearFunc(func() error {
		if fail {
			return errors.New("disk full")
		}
		return nil
	})}
	h.m.stats.usage = llm.Usage{InputTokens: 1200, OutputTokens: 300}
	h.typeText("/clear")
	h.press(tea.KeyEnter, 0)
	if h.m.stats.usage.InputTokens != 1200 || h.m.stats.usage.OutputTokens != 300 {
		t.Fatalf("totals after /clear: %+v", h.m.stats.usage)
	}
	if p := h.printed(); !strings.Contains(p, "ply -r test-session") {
		t.Fatalf("/clear does not name the session left:\n%s", p)
	}
	fail = true
	h.typeText("/clear")
	h.press(tea.KeyEnter, 0)
	if p := h.printed(); !strings.Contains(p, "✗ /clear: disk full (the conversation goes on)") {
		t.Fatalf("a failed /clear:\n%s", p)
	}
}
