package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
)

// TestDeniedCardShowsReason: the reason typed when denying a call is on
// its card in full, wrapped on words, at 80 and 120 columns.
func TestDeniedCardShowsReason(t *testing.T) {
	reason := "do not touch the generated parser; edit the grammar in parser.y and regenerate it with make gen instead"
	for _, w := range []int{80, 120} {
		h := newHarness(t, nil, nil)
		h.update(tea.WindowSizeMsg{Width: w, Height: 30})
		h.m.busy, h.m.id = true, 1
		reply := make(chan scheduler.Decision, 1)
		call := callView{id: "c1", name: "edit", state: scheduler.StateAwaitingApproval,
			args: `{"file_path":"parser.go","old_string":"a","new_string":"b"}`}
		h.update(approvalMsg{reply: reply, call: call})
		h.typeText("n" + reason)
		h.press(tea.KeyEnter, 0)
		if d := <-reply; d.Reason != reason {
			t.Fatalf("decision %+v", d)
		}
		call.state = scheduler.StateCancelled
		call.output = "The user denied this tool call, so it was not run. Do not retry it unchanged. Reason: " + reason
		h.update(callMsg{call: call})
		h.update(toolsDoneMsg{id: 1})
		p := h.printed()
		if !strings.Contains(p, "⊘ edit parser.go") || !strings.Contains(p, "⎿ denied: do not touch") {
			t.Fatalf("at %d the card does not say it was denied with the reason:\n%s", w, p)
		}
		if got := strings.Join(strings.Fields(p[strings.Index(p, "denied: ")+len("denied: "):]), " "); got != reason {
			t.Fatalf("at %d the reason reads %q, want it whole", w, got)
		}
		for _, l := range strings.Split(p, "\n") {
			if len([]rune(l)) > w {
				t.Fatalf("a line wider than %d: %q", w, l)
			}
			if strings.HasSuffix(l, "rege") || strings.HasSuffix(l, "gram") {
				t.Fatalf("the reason is cut mid-word:\n%s", p)
			}
		}
	}
}

// TestCardNamesWhatMatters: a card names the call by what it is about:
// the pattern and folder of a search, the lines of a read, the command.
func TestCardNamesWhatMatters(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, c := range []struct{ name, args, want string }{
		{"grep_search", `{"pattern":"countValue"}`, `grep_search "countValue" in .`},
		{"read_file", `{"file_path":"internal/x.go","offset":9,"limit":31}`, "read_file internal/x.go:10-40"},
		{"run_shell_command", `{"command":"go test ./...","description":"run the tests"}`, "run_shell_command go test ./..."},
	} {
		h.update(callMsg{call: callView{id: c.name, name: c.name, args: c.args, state: scheduler.StateSuccess, output: "ok"}})
		if v := h.view(); !strings.Contains(v, c.want) {
			t.Errorf("the card does not read %q:\n%s", c.want, v)
		}
	}
}
