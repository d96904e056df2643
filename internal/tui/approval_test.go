package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// editTool is an edit the scheduler must ask about; it counts its runs.
type editTool struct{ ran atomic.Int32 }

func (*editTool) Name() string            { return "edit" }
func (*editTool) Description() string     { return "fake edit" }
func (*editTool) Kind() tools.Kind        { return tools.KindEdit }
func (*editTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (e *editTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	e.ran.Add(1)
	return tools.Result{Output: "edited"}, nil
}

type approveFunc func(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error)

func (f approveFunc) Approve(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error) {
	return f(ctx, c)
}

// schedulerHarness wires a real scheduler to the model as the UI does:
// its updates and approval requests arrive as messages, the dialog's
// answer goes back on the reply channel. Every prompt asks for one edit;
// results lists what each tool round sent back to the model.
func schedulerHarness(t *testing.T) (h *harness, tool *editTool, results func() []string) {
	var mu sync.Mutex
	var sent []string
	rounds := roundsFunc(func(_ context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		if typ == client.ToolResult {
			mu.Lock()
			sent = append(sent, parts[0].Response.Output)
			mu.Unlock()
			return []turn.Event{turn.Content{Text: "done"}, turn.Finished{Reason: llm.FinishStop}}
		}
		return []turn.Event{&turn.ToolCallRequest{CallID: "c-" + parts[0].Text, Name: "edit",
			Args: `{"file_path":"x.go","old_string":"a","new_string":"b"}`}, turn.Finished{Reason: llm.FinishToolCalls}}
	})
	tool = &editTool{}
	var sch *scheduler.Scheduler
	runner := toolsFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
		reqs := make([]scheduler.Request, len(calls))
		for i, c := range calls {
			reqs[i] = scheduler.Request{CallID: c.CallID, Name: c.Name, Args: c.Args}
		}
		done, err := sch.Run(ctx, reqs)
		resps := make([]llm.FunctionResponse, len(done))
		for i, c := range done {
			resps[i] = c.Response()
		}
		return resps, err
	})
	h = newHarness(t, rounds, runner)
	sch = scheduler.New(tools.NewRegistry(tool),
		scheduler.WithOnUpdate(func(c *scheduler.Call) { h.msgs <- callMsg{call: viewOf(c)} }),
		scheduler.WithApprover(approveFunc(func(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error) {
			reply := make(chan scheduler.Decision, 1)
			h.msgs <- approvalMsg{call: viewOf(c), reply: reply}
			select {
			case d := <-reply:
				return d, nil
			case <-ctx.Done():
				return scheduler.Decision{}, ctx.Err()
			}
		})))
	return h, tool, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), sent...) }
}

func isApproval(msg tea.Msg) bool { _, ok := msg.(approvalMsg); return ok }

// TestAllowAlwaysIsRemembered answers the dialog and sends a second
// prompt: after "a" the scheduler runs the same tool without asking, after
// "y" it asks again.
func TestAllowAlwaysIsRemembered(t *testing.T) {
	for _, tc := range []struct {
		key       string
		asksAgain bool
	}{{"a", false}, {"y", true}} {
		t.Run(tc.key, func(t *testing.T) {
			h, tool, _ := schedulerHarness(t)
			h.typeText("one")
			h.press(tea.KeyEnter, 0)
			h.pumpUntil(isApproval)
			if v := h.view(); !strings.Contains(v, "Allow edit?") || !strings.Contains(v, "a allow always") {
				t.Fatalf("no dialog:\n%s", v)
			}
			h.typeText(tc.key)
			h.pumpUntil(isDone)
			asked := false
			h.typeText("two")
			h.press(tea.KeyEnter, 0)
			h.pumpUntil(func(msg tea.Msg) bool {
				if isApproval(msg) {
					asked = true
					h.typeText("y")
				}
				return isDone(msg)
			})
			if asked != tc.asksAgain || tool.ran.Load() != 2 {
				t.Fatalf("after %q: asked again %v, want %v; runs %d\n%s", tc.key, asked, tc.asksAgain, tool.ran.Load(), h.printed())
			}
			if h.m.input.Value() != "" {
				t.Fatalf("dialog keys reached the editor: %q", h.m.input.Value())
			}
		})
	}
}

// TestDenyWithReasonReachesModel types a reason, with a false start, and
// checks that it is what the model is told.
func TestDenyWithReasonReachesModel(t *testing.T) {
	h, tool, results := schedulerHarness(t)
	h.typeText("one")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isApproval)
	reply := h.m.approval.reply
	h.typeText("noops")
	h.press(tea.KeyEscape, 0) // back to the choices, unanswered
	if len(reply) != 0 || h.m.approval == nil || !strings.Contains(h.view(), "y allow once") || !h.m.busy {
		t.Fatalf("Esc while typing a reason answered or left the dialog:\n%s", h.view())
	}
	h.typeText("nwrong filx")
	h.press(tea.KeyBackspace, 0)
	h.typeText("e, use y.go")
	if v := h.view(); !strings.Contains(v, "Reason for denying") || !strings.Contains(v, "> wrong file, use y.go") {
		t.Fatalf("the reason is not shown as typed:\n%s", v)
	}
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	got := results()
	if tool.ran.Load() != 0 || len(got) != 1 || !strings.Contains(got[0], "denied") || !strings.Contains(got[0], "Reason: wrong file, use y.go") {
		t.Fatalf("runs %d, the model was sent %q", tool.ran.Load(), got)
	}
}

func TestApprovalDialogShowsDiff(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(v map[string]string) string { b, _ := json.Marshal(v); return string(b) }
	long := strings.Repeat("line\n", 40)
	for _, tc := range []struct {
		name, tool, args string
		want, not        []string
	}{
		{"edit", "edit", args(map[string]string{"file_path": "g.go", "old_string": "keep\nold line\n", "new_string": "keep\nnew line\n"}),
			[]string{"file_path: g.go", "1   keep", "2 - old line", "2 + new line"}, nil},
		{"write_file over a file", "write_file", args(map[string]string{"file_path": "f.txt", "content": "one\nTWO\nthree\n"}),
			[]string{"file_path: f.txt", "1   one", "2 - two", "2 + TWO", "3   three"}, []string{"content:"}},
		{"write_file new", "write_file", args(map[string]string{"file_path": "new.txt", "content": "hello\nworld\n"}),
			[]string{"1 + hello", "2 + world"}, []string{"1 - ", "2 - "}},
		{"long diff scrolls", "write_file", args(map[string]string{"file_path": "n.txt", "content": long}),
			[]string{" 1 + line", "lines 1–14 of 41 · ↑/↓ PgUp/PgDn to scroll"}, nil},
		{"no diff", "run_shell_command", args(map[string]string{"command": "make test"}),
			[]string{"command: make test"}, []string{"file_path:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.m.cfg.Root = root
			h.m.busy, h.m.id = true, 1
			reply := make(chan scheduler.Decision, 1)
			h.update(approvalMsg{reply: reply, call: callView{id: "c1", name: tc.tool, args: tc.args, state: scheduler.StateAwaitingApproval}})
			dialog, _, _ := strings.Cut(h.view(), "y allow once")
			for _, w := range tc.want {
				if !strings.Contains(dialog, "│ "+w) { // a line of the dialog's box
					t.Errorf("dialog lacks %q:\n%s", w, dialog)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(dialog, "│ "+w) {
					t.Errorf("dialog has %q:\n%s", w, dialog)
				}
			}
			if tc.name == "long diff scrolls" {
				h.press(tea.KeyDown, 0)
				if !strings.Contains(h.view(), "lines 2–15 of 41") {
					t.Fatalf("Down did not scroll the diff:\n%s", h.view())
				}
			}
			h.press(tea.KeyEnter, 0)
			if len(reply) != 1 || (<-reply).Outcome != scheduler.OutcomeAllowOnce {
				t.Fatal("Enter did not allow once")
			}
		})
	}
}

// TestStopAnswersTheDialog: Ctrl+C while the dialog is open cancels the
// call (and the batch) rather than leaving the scheduler waiting.
func TestStopAnswersTheDialog(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	reply := make(chan scheduler.Decision, 1)
	h.update(approvalMsg{reply: reply, call: callView{id: "c1", name: "edit", args: `{}`}})
	h.typeText("n")
	h.press('c', tea.ModCtrl)
	select {
	case d := <-reply:
		if d.Outcome != scheduler.OutcomeCancel || h.m.approval != nil || !h.m.cancelling {
			t.Fatalf("Ctrl+C in the dialog: %+v, dialog open %v", d, h.m.approval != nil)
		}
	default:
		t.Fatal("Ctrl+C left the dialog unanswered")
	}
}
