package tui

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// sentRound is what one round was asked to send.
type sentRound struct {
	typ   client.SendType
	parts []llm.Part
}

// recorder scripts the client and records every round it is asked for;
// reply gives the events of round n (0-based).
type recorder struct {
	mu    sync.Mutex
	sent  []sentRound
	reply func(n int, ctx context.Context) []turn.Event
}

func (r *recorder) SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	r.mu.Lock()
	n := len(r.sent)
	r.sent = append(r.sent, sentRound{typ: typ, parts: parts})
	r.mu.Unlock()
	evs := []turn.Event{turn.Content{Text: "ok"}, turn.Finished{Reason: llm.FinishStop}}
	if r.reply != nil {
		evs = r.reply(n, ctx)
	}
	return func(yield func(turn.Event) bool) {
		for _, ev := range evs {
			if !yield(ev) {
				return
			}
		}
	}
}

func (r *recorder) rounds() []sentRound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sentRound(nil), r.sent...)
}

// send types text and presses Enter, then waits for the interaction's end.
func (h *harness) send(text string) {
	h.t.Helper()
	h.typeText(text)
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
}

func (h *harness) ctrl(r rune) tea.Cmd {
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl})
	return cmd
}

func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestThoughtFoldedAndToggled(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	h.update(eventMsg{id: 1, ev: turn.Thought{Text: "the secret plan "}})
	h.update(eventMsg{id: 1, ev: turn.Thought{Text: "is ready"}})
	if v := h.view(); !strings.Contains(v, "thinking… (5 words) · ctrl+t to show") || strings.Contains(v, "secret plan") {
		t.Fatalf("the thought is not folded by default:\n%s", v)
	}
	h.ctrl('t')
	if v := h.view(); !strings.Contains(v, "the secret plan is ready") {
		t.Fatalf("Ctrl+T did not open the thinking block:\n%s", v)
	}
	h.ctrl('t')
	if v := h.view(); strings.Contains(v, "secret plan") {
		t.Fatalf("a second Ctrl+T did not fold it again:\n%s", v)
	}

	// The reply commits the thought, folded, to the conversation.
	h.update(eventMsg{id: 1, ev: turn.Content{Text: "done"}})
	h.update(eventMsg{id: 1, ev: turn.Finished{Reason: llm.FinishStop}})
	if p := h.printed(); !strings.Contains(p, "∴ thought (5 words) · ctrl+t to show") || strings.Contains(p, "secret plan") {
		t.Fatalf("the committed thought is not folded:\n%s", p)
	}
	// Ctrl+T prints the folded one in full: the scrollback cannot unfold.
	h.ctrl('t')
	if p := h.printed(); !strings.Contains(p, "│ the secret plan is ready") {
		t.Fatalf("Ctrl+T did not print the last thought:\n%s", p)
	}
	// Shown, a new thought streams and is committed in full.
	h.update(eventMsg{id: 1, ev: turn.Thought{Text: "second idea"}})
	if v := h.view(); !strings.Contains(v, "second idea") {
		t.Fatalf("shown thoughts not streamed in full:\n%s", v)
	}
	h.update(eventMsg{id: 1, ev: turn.Content{Text: "more"}})
	if p := h.printed(); !strings.Contains(p, "│ second idea") {
		t.Fatalf("a shown thought was committed folded:\n%s", p)
	}
	// Folding and showing again prints nothing new: it is there in full.
	n := len(h.m.printed)
	h.ctrl('t')
	h.ctrl('t')
	if len(h.m.printed) != n {
		t.Fatalf("Ctrl+T printed a thought shown in full again:\n%s", strings.Join(h.m.printed[n:], "\n"))
	}
}

func TestLargePasteCollapsedAndSentWhole(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("log line %d", i))
	}
	big := strings.Join(lines, "\r\n") // a terminal's line ends
	h.typeText("look: ")
	h.update(tea.PasteMsg{Content: big})
	h.typeText(" and ")
	h.update(tea.PasteMsg{Content: strings.Repeat("x", 1500)})
	if got, want := h.m.input.Value(), "look: [Pasted text #1 +30 lines] and [Pasted text #2 +1 lines]"; got != want {
		t.Fatalf("editor holds %q, want %q", got, want)
	}
	if strings.Contains(h.view(), "log line 17") {
		t.Fatalf("the paste was not collapsed:\n%s", h.view())
	}
	// A short paste goes in as it is.
	h.update(tea.PasteMsg{Content: " short\npaste"})
	if got := h.m.input.Value(); !strings.HasSuffix(got, " short\npaste") {
		t.Fatalf("short paste not inserted verbatim: %q", got)
	}
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	sent := rec.rounds()
	want := "look: " + strings.Join(lines, "\n") + " and " + strings.Repeat("x", 1500) + " short\npaste"
	if len(sent) != 1 || sent[0].parts[0].Text != want {
		t.Fatalf("sent %+v\nwant %q", sent, want)
	}
	if p := h.printed(); !strings.Contains(p, "> look: [Pasted text #1 +30 lines]") || strings.Contains(p, "log line 17") {
		t.Fatalf("the prompt shown is not the collapsed one:\n%s", p)
	}
}

func TestAtPathCompletion(t *testing.T) {
	root := t.TempDir()
	emptyFiles(t, root, "README.md", "src/main.go", "src/model.go", ".hidden", ".git/config", "docs/a.md", "u/café-1.txt", "u/cafè-2.txt")
	h := newHarness(t, nil, nil)
	h.m.cfg.Root = root
	tab := func(typed string) (string, string) {
		h.m.input.Reset()
		h.typeText(typed)
		h.press(tea.KeyTab, 0)
		return h.m.input.Value(), h.m.hint
	}
	// Tab takes the highlighted path of the menu: the first, sorted; a
	// file gets a space after it, a folder none.
	for _, tc := range []struct{ typed, value, hint string }{
		{"see @RE", "see @README.md ", ""},
		{"@s", "@src/", ""},
		{"@src/m", "@src/main.go ", ""},
		{"@", "@README.md ", ""},
		{"@.", "@.hidden ", ""}, // named, a hidden entry is offered; .git never
		{"@u/caf", "@u/cafè-2.txt ", ""},
		{"@zz", "@zz", "no file matches @zz"},
		{"@../", "@../", "no file matches @../"},
		{"mail a@b", "mail a@b", ""}, // not at a word's start: left alone
	} {
		v, hint := tab(tc.typed)
		if v != tc.value || hint != tc.hint || !utf8.ValidString(v) {
			t.Errorf("%q + Tab: editor %q hint %q, want %q hint %q", tc.typed, v, hint, tc.value, tc.hint)
		}
	}
	if tab("@zz"); !strings.Contains(h.view(), "no file matches @zz") {
		t.Fatalf("the hint is not shown under the editor:\n%s", h.view())
	}
}

func TestRetryResendsWithoutNewPrompt(t *testing.T) {
	rec := &recorder{reply: func(n int, _ context.Context) []turn.Event {
		if n == 0 {
			return []turn.Event{turn.Content{Text: "part"}, turn.Error{Err: errors.New("503 overloaded")}}
		}
		return []turn.Event{turn.Content{Text: "second try worked"}, turn.Finished{Reason: llm.FinishStop}}
	}}
	h := newHarness(t, rec, nil)

	h.ctrl('y')
	if h.m.busy || len(rec.rounds()) != 0 || !strings.Contains(h.printed(), "nothing to retry") {
		t.Fatalf("Ctrl+Y with nothing failed: busy=%v rounds=%v\n%s", h.m.busy, rec.rounds(), h.printed())
	}
	h.send("hello")
	if p := h.printed(); !strings.Contains(p, "✗ 503 overloaded") || !strings.Contains(p, "Ctrl+Y to retry") {
		t.Fatalf("failure not reported with the retry hint:\n%s", p)
	}
	if !strings.Contains(h.view(), "ctrl+y retry") {
		t.Fatalf("footer lacks the retry hint:\n%s", h.view())
	}
	h.ctrl('y')
	if !h.m.busy {
		t.Fatal("Ctrl+Y did not start an interaction")
	}
	h.pumpUntil(isDone)
	sent := rec.rounds()
	if len(sent) != 2 || sent[0].typ != client.UserQuery || sent[0].parts[0].Text != "hello" ||
		sent[1].typ != client.Retry || len(sent[1].parts) != 0 {
		t.Fatalf("rounds sent %+v, want the prompt then a Retry with no parts", sent)
	}
	if p := h.printed(); !strings.Contains(p, "retrying the last request") || !strings.Contains(p, "second try worked") ||
		strings.Count(p, "> hello") != 1 {
		t.Fatalf("retry not shown as such:\n%s", p)
	}
	// It worked: nothing is left to retry.
	h.ctrl('y')
	if h.m.busy || len(rec.rounds()) != 2 || strings.Count(h.printed(), "nothing to retry") != 2 {
		t.Fatalf("a second Ctrl+Y retried again: rounds=%d\n%s", len(rec.rounds()), h.printed())
	}
}

func TestShiftTabCyclesModes(t *testing.T) {
	modes := []string{"default", "auto_edit", "plan", "yolo"}
	t.Run("through Mode and SetMode", func(t *testing.T) {
		h := newHarness(t, nil, nil)
		cur, set := "default", []string{}
		h.m.cfg.Session = &session{modes: modes, mode: func() string { return cur }, setMode: func(n string) error {
			if n == "yolo" {
				return errors.New("yolo is refused here")
			}
			set, cur = append(set, n), n
			return nil
		}}
		for _, want := range []string{"auto_edit", "plan"} {
			h.press(tea.KeyTab, tea.ModShift)
			if cur != want || !strings.Contains(h.view(), "test-model · "+want+" mode") {
				t.Fatalf("mode %q, want %q; footer:\n%s", cur, want, h.view())
			}
		}
		// The cycle wraps past yolo: Shift+Tab never approves everything
		// (yolo only by flag, setting or /approval-mode, as in Claude Code).
		h.press(tea.KeyTab, tea.ModShift)
		if cur != "default" || strings.Contains(h.printed(), "yolo") || !strings.Contains(h.view(), "default mode") {
			t.Fatalf("Shift+Tab from plan: now %q\n%s\n%s", cur, h.printed(), h.view())
		}
		cur = "yolo" // chosen by flag: the cycle leaves it for the next safe mode
		h.press(tea.KeyTab, tea.ModShift)
		if cur != "default" || strings.Join(set, ",") != "auto_edit,plan,default,default" || !strings.Contains(h.view(), "default mode") {
			t.Fatalf("mode %q after %v:\n%s", cur, set, h.view())
		}
	})
	t.Run("without a session's modes", func(t *testing.T) {
		h := newHarness(t, nil, nil)
		h.press(tea.KeyTab, tea.ModShift)
		if v := h.view(); !strings.Contains(v, "default mode") {
			t.Fatalf("Shift+Tab changed the mode of a session that has no modes:\n%s", v)
		}
	})
}

func TestInputHistory(t *testing.T) {
	h := newHarness(t, &recorder{}, nil)
	h.send("first")
	h.typeText("two")
	h.press('j', tea.ModCtrl) // a new line
	h.typeText("lines")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	h.send("third")
	h.send("third") // not remembered twice
	h.typeText("draft")
	value := func() string { return h.m.input.Value() }
	for i, step := range []struct {
		key  rune
		want string
	}{
		{tea.KeyUp, "third"},
		{tea.KeyUp, "two\nlines"},
		{tea.KeyUp, "two\nlines"}, // the cursor goes up the entry's lines first
		{tea.KeyDown, "two\nlines"},
		{tea.KeyUp, "two\nlines"},
		{tea.KeyUp, "first"},
		{tea.KeyUp, "first"},        // the oldest stays
		{tea.KeyDown, "two\nlines"}, // entered at its end: the next Down leaves it
		{tea.KeyDown, "third"},
		{tea.KeyDown, "draft"}, // past the newest: what was being typed
		{tea.KeyDown, "draft"},
	} {
		h.press(step.key, 0)
		if value() != step.want {
			t.Fatalf("step %d: editor %q, want %q", i, value(), step.want)
		}
	}
}

func TestCtrlCIdleQuitsOnlyTwice(t *testing.T) {
	h := newHarness(t, nil, nil)
	if quits(h.ctrl('c')) || !strings.Contains(h.view(), "Press Ctrl+C again to exit") {
		t.Fatalf("first Ctrl+C quit or did not warn:\n%s", h.view())
	}
	h.typeText("x") // another key disarms
	if strings.Contains(h.view(), "again to exit") {
		t.Fatalf("typing did not disarm:\n%s", h.view())
	}
	if quits(h.ctrl('c')) || h.m.input.Value() != "" || strings.Contains(h.view(), "again to exit") {
		t.Fatalf("Ctrl+C on a typed prompt should only clear it: %q\n%s", h.m.input.Value(), h.view())
	}
	if quits(h.ctrl('c')) {
		t.Fatal("one Ctrl+C on the empty prompt quit")
	}
	if !quits(h.ctrl('c')) {
		t.Fatal("the second Ctrl+C did not quit")
	}
}

func TestStopKeysWhileBusy(t *testing.T) {
	for _, stop := range []tea.KeyPressMsg{{Code: 'c', Mod: tea.ModCtrl}, {Code: tea.KeyEscape}} {
		t.Run(stop.String(), func(t *testing.T) {
			rec := &recorder{reply: func(_ int, ctx context.Context) []turn.Event {
				<-ctx.Done() // runs until cancelled
				return []turn.Event{turn.UserCancelled{}}
			}}
			h := newHarness(t, rec, nil)
			h.typeText("long job")
			h.press(tea.KeyEnter, 0)
			for range 2 { // twice: still no quitting while busy
				if _, cmd := h.m.Update(stop); quits(cmd) {
					t.Fatalf("%s while busy quit", stop)
				}
			}
			if !strings.Contains(h.view(), "stopping…") {
				t.Fatalf("not stopping:\n%s", h.view())
			}
			h.pumpUntil(isDone) // only a cancelled context ends the round
			if h.m.busy || !strings.Contains(h.printed(), "⏹ cancelled") || strings.Contains(h.view(), "again to exit") {
				t.Fatalf("busy=%v\n%s\n%s", h.m.busy, h.printed(), h.view())
			}
		})
	}
}

// TestViewFitsAfterResize fills every part of the live area at one size,
// resizes, and checks each frame: no line wider than the window, and with
// NoColor not one escape sequence (the editor's cursor is the terminal's).
func TestViewFitsAfterResize(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 20}, {40, 15}, {20, 5}} {
		statusLines := map[bool]string{}
		for _, noColor := range []bool{true, false} {
			w := size[0]
			h := newHarness(t, nil, nil)
			h.m.cfg.NoColor, h.m.st, h.m.md = noColor, newStyles(noColor), newMarkdown(noColor)
			h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
			h.m.busy, h.m.id = true, 1
			h.update(eventMsg{id: 1, ev: turn.Content{Text: strings.Repeat("a reply that goes on ", 30)}}) // an open line
			h.update(eventMsg{id: 1, ev: turn.Thought{Text: strings.Repeat("pondering deeply ", 60)}})
			h.update(eventMsg{id: 1, ev: &turn.ToolCallRequest{CallID: "c1", Name: "run_shell_command", Args: `{"command":"` + strings.Repeat("x", 200) + `"}`}})
			h.update(callMsg{call: callView{id: "c1", name: "run_shell_command", state: scheduler.StateExecuting}})
			h.update(eventMsg{id: 1, ev: &turn.ToolCallRequest{CallID: "c2", Name: "mcp__server__some_long_tool_name", Args: `{}`}})
			h.m.todos = []todo{{Content: strings.Repeat("do the thing ", 20), Status: "in_progress"}}
			h.m.queued = []string{"later"}
			h.update(tea.WindowSizeMsg{Width: w, Height: size[1]})

			check := func(state string) {
				t.Helper()
				v := h.m.View()
				for i, l := range strings.Split(v.Content, "\n") {
					if lw := ansi.StringWidth(l); lw > w {
						t.Errorf("%dx%d %s: line %d is %d wide:\n%q", w, size[1], state, i, lw, l)
					}
				}
				if noColor && strings.Contains(v.Content, "\x1b") {
					t.Errorf("%dx%d %s: escape sequence with NoColor:\n%q", w, size[1], state, v.Content)
				}
			}
			check("busy")
			h.ctrl('t')
			check("thoughts shown")
			// The server's words, escapes and all, in the status line.
			h.update(eventMsg{id: 1, ev: turn.Retry{Reason: "\x1b[31mHTTP 503\x1b[0m " + strings.Repeat("the server is overloaded ", 8)}})
			check("retrying")
			for _, l := range strings.Split(h.view(), "\n") {
				if strings.Contains(l, "working…") {
					statusLines[noColor] = ansi.Strip(l)
				}
			}
			h.update(approvalMsg{reply: make(chan scheduler.Decision, 1), call: callView{id: "c2", name: "edit",
				args: `{"file_path":"` + strings.Repeat("dir/", 40) + `x.go","old_string":"` + strings.Repeat("old ", 50) +
					`","new_string":"\tnew 新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新新"}`}})
			check("dialog")
			h.typeText("n" + strings.Repeat("because ", 20))
			check("reason")
			h.press(tea.KeyEnter, 0)
			h.update(doneMsg{id: 1})
			h.m.picker = &picker{items: []SessionInfo{{ID: "s1", Turns: 3, FirstPrompt: strings.Repeat("long prompt ", 20)}}}
			check("picker")
			h.press(tea.KeyEscape, 0)
			h.typeText("/")
			check("hint")
			if v := h.m.View(); noColor {
				lines := strings.Split(v.Content, "\n")
				if v.Cursor == nil || v.Cursor.Y >= len(lines) || !strings.HasPrefix(lines[v.Cursor.Y], "> /") || v.Cursor.X != 3 || v.Cursor.Color != nil {
					t.Errorf("%dx%d: the cursor %+v is not after the typed slash:\n%s", w, size[1], v.Cursor, v.Content)
				}
			}
		}
		// Cut by visible width, the styled status line reads as the plain one.
		if statusLines[true] == "" || statusLines[false] != statusLines[true] {
			t.Errorf("%dx%d: status line styled %q, plain %q", size[0], size[1], statusLines[false], statusLines[true])
		}
	}
}

// TestDriverRecoversPanics: a panic below the driver ends the interaction
// with an error the user sees, instead of killing the process.
func TestDriverRecoversPanics(t *testing.T) {
	toolCall := roundsFunc(func(context.Context, []llm.Part, client.SendType) []turn.Event {
		return []turn.Event{&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{}`}, turn.Finished{Reason: llm.FinishToolCalls}}
	})
	for _, tc := range []struct {
		name   string
		rounds Rounds
		tools  ToolRunner
		events int // stream events delivered before the panic
	}{
		{"round stream", roundsFunc(func(context.Context, []llm.Part, client.SendType) []turn.Event { panic("kaboom") }), nil, 0},
		{"mid-stream", panicAfter{turn.Content{Text: "half a"}}, nil, 1},
		{"tool runner", toolCall, toolsFunc(func(context.Context, []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) { panic("kaboom") }), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var msgs []tea.Msg
			d := &driver{rounds: tc.rounds, tools: tc.tools, send: func(m tea.Msg) { msgs = append(msgs, m) }}
			d.interact(context.Background(), 3, loop.Input{Parts: []llm.Part{{Text: "go"}}, Type: client.UserQuery})
			if len(msgs) != tc.events+1 {
				t.Fatalf("messages %#v, want %d events and the end", msgs, tc.events)
			}
			done, ok := msgs[len(msgs)-1].(doneMsg)
			if !ok || done.id != 3 || done.cancelled || done.err == nil || done.err.Error() != "internal error: kaboom" {
				t.Fatalf("the interaction ended with %#v", msgs[len(msgs)-1])
			}
			h := newHarness(t, nil, nil)
			h.m.busy, h.m.id = true, 3
			for _, m := range msgs {
				h.update(m)
			}
			if h.m.busy || !strings.Contains(h.printed(), "✗ internal error: kaboom") || strings.Contains(h.view(), "working") {
				t.Fatalf("busy=%v\n%s\n%s", h.m.busy, h.printed(), h.view())
			}
		})
	}
}

// panicAfter yields its events, then panics inside the stream.
type panicAfter []turn.Event

func (p panicAfter) SendMessageStream(context.Context, []llm.Part, client.SendType) iter.Seq[turn.Event] {
	return func(yield func(turn.Event) bool) {
		for _, ev := range p {
			if !yield(ev) {
				return
			}
		}
		panic("kaboom")
	}
}

// emptyFiles creates the empty files names (slash paths) under root.
func emptyFiles(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, f := range names {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A short paste keeps its tabs (a Makefile rule, Go code), and so does a
// prompt brought back from history.
func TestPasteKeepsTabs(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	rule := "build:\n\tgo build ./...\n\tgo vet ./..."
	h.update(tea.PasteMsg{Content: rule})
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	if sent := rec.rounds(); len(sent) != 1 || sent[0].parts[0].Text != rule {
		t.Fatalf("sent %q, want %q", sent[0].parts[0].Text, rule)
	}
	h.press(tea.KeyUp, 0)
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	if sent := rec.rounds(); len(sent) != 2 || sent[1].parts[0].Text != rule {
		t.Fatalf("sent again %q, want %q", sent[len(sent)-1].parts[0].Text, rule)
	}
}

// TestShiftTabReachesAuto: with the session's modes in core's order,
// Shift+Tab goes from auto-edit to auto, and from auto past yolo to plan.
func TestShiftTabReachesAuto(t *testing.T) {
	h := newHarness(t, nil, nil)
	cur := "auto-edit"
	h.m.cfg.Session = &session{modes: []string{"plan", "default", "auto-edit", "auto", "yolo"}, mode: func() string { return cur },
		setMode: func(n string) error { cur = n; return nil }}
	for _, want := range []string{"auto", "plan"} {
		h.press(tea.KeyTab, tea.ModShift)
		if cur != want {
			t.Fatalf("Shift+Tab: mode %q, want %q", cur, want)
		}
	}
}
