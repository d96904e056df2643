package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

func shellOutput(n int) string {
	var b strings.Builder
	b.WriteString("Command: seq\nDirectory: /w\nOutput: ")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "row-%02d\n", i)
	}
	b.WriteString("Exit code: 0")
	return b.String()
}

// A finished command keeps its last lines and says how many more there
// are; Ctrl+O prints the latest cards again in full, and folds again.
func TestFinishedCommandCard(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	h.update(eventMsg{id: 1, ev: &turn.ToolCallRequest{CallID: "c1", Name: shellTool, Args: `{"command":"seq"}`}})
	h.update(callMsg{call: callView{id: "c1", name: shellTool, state: scheduler.StateSuccess, output: shellOutput(12), display: "Exit code 0"}})
	v := h.view()
	for _, want := range []string{"row-09", "row-12", "Exit code 0 · 8 more lines · ctrl+o to show"} {
		if !strings.Contains(v, want) {
			t.Errorf("card lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "row-08") || strings.Contains(v, "Command:") {
		t.Errorf("card shows more than its tail:\n%s", v)
	}
	h.update(toolsDoneMsg{id: 1})
	before := len(h.m.printed)
	h.ctrl('o')
	full := strings.Join(h.m.printed[before:], "\n")
	for i := 1; i <= 12; i++ {
		if !strings.Contains(full, fmt.Sprintf("row-%02d", i)) {
			t.Fatalf("Ctrl+O's print lacks row %d:\n%s", i, full)
		}
	}
	if strings.Contains(full, "more line") {
		t.Errorf("the unfolded card still folds:\n%s", full)
	}
	h.ctrl('o')
	if h.m.expandOutput {
		t.Error("a second Ctrl+O did not fold output")
	}
}

func TestPlainWords(t *testing.T) {
	if got := plural(1, "more line"); got != "1 more line" {
		t.Errorf("plural 1: %q", got)
	}
	if got := plural(3, "turn"); got != "3 turns" {
		t.Errorf("plural 3: %q", got)
	}
	if got := firstLine("a\nb", 20); got != "a (+1 line)" {
		t.Errorf("firstLine: %q", got)
	}
	denied := callView{state: scheduler.StateCancelled, output: "The user denied this tool call, so it was not run."}
	if got := stateWords(&denied); got != "denied" {
		t.Errorf("a denied call reads %q", got)
	}
	for _, st := range []scheduler.State{scheduler.StateAwaitingApproval, scheduler.StateSuccess, scheduler.StateError} {
		if w := stateWords(&callView{state: st}); strings.Contains(w, "_") || w == string(st) && st != scheduler.StateError {
			t.Errorf("state %s reads %q", st, w)
		}
	}
}

// A card's summary of its arguments is the argument that matters, or a
// few plain fields: never the raw JSON.
func TestArgSummary(t *testing.T) {
	for args, want := range map[string]string{
		`{"file_path":"a.go","content":"x"}`:                              "a.go",
		`{"todos":[{"id":"1","content":"a"},{"id":"2"},{"id":"3"}]}`:      "3 todos",
		`{"todos":[{"id":"1","content":"a","status":"pending"}]}`:         "1 todo",
		`{"description":"mark final","prompt":"set the status to final"}`: "mark final",
		`{"limit":5,"recursive":true,"names":["a","b"]}`:                  "limit 5, names: 2 items, recursive true",
		`{"note":"first line\nsecond"}`:                                   "note: first line",
		`not json`:                                                        "not json",
	} {
		if got := argSummary(args); got != want {
			t.Errorf("argSummary(%s) = %q, want %q", args, got, want)
		}
	}
}

func FuzzArgSummary(f *testing.F) {
	f.Add(`{"todos":[1,2]}`)
	f.Add(`{"a":{"b":[1]},"c":"d\ne"}`)
	f.Fuzz(func(t *testing.T, args string) {
		s := argSummary(args)
		if strings.HasPrefix(strings.TrimSpace(args), "{") && strings.HasPrefix(s, "{\"") && len(s) > 2 {
			var probe map[string]any
			if jsonValid(args, &probe) {
				t.Fatalf("raw JSON summary %q", s)
			}
		}
	})
}

func jsonValid(s string, v any) bool { return json.Unmarshal([]byte(s), v) == nil }

// Esc on a running request puts what was typed ahead back into the
// input box, before what the box holds; nothing is left queued.
func TestEscUnqueues(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	h.m.cancel = func() {}
	h.m.queued = []string{"one", "two"}
	h.typeText("draft")
	h.update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if got := h.m.input.Value(); got != "one\n\ntwo\n\ndraft" {
		t.Fatalf("input %q; want the queued messages, then the draft", got)
	}
	if len(h.m.queued) != 0 {
		t.Fatalf("still queued: %q", h.m.queued)
	}
}
