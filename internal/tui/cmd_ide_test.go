package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/scheduler"
)

// A question withdrawn by its asker (the editor's diff view answered
// first) closes its dialog, and the next waiting one opens.
func TestWithdrawnApprovalClosesItsDialog(t *testing.T) {
	h := newHarness(t, nil, nil)
	first := make(chan scheduler.Decision, 1)
	second := make(chan scheduler.Decision, 1)
	h.update(approvalMsg{reply: first, call: callView{id: "c1", name: "edit", args: `{}`, state: scheduler.StateAwaitingApproval}})
	h.update(approvalMsg{reply: second, from: "agent-1", call: callView{id: "c2", name: "edit", args: `{}`, state: scheduler.StateAwaitingApproval}})
	if h.m.approval == nil || h.m.approval.reply != first {
		t.Fatal("the first dialog is not open")
	}
	h.update(withdrawMsg(first))
	if h.m.approval == nil || h.m.approval.reply != second {
		t.Fatal("withdrawing the open question did not open the waiting one")
	}
	h.update(withdrawMsg(first)) // again: nothing to do
	h.update(withdrawMsg(second))
	if h.m.approval != nil || len(h.m.waiting) != 0 {
		t.Fatal("a withdrawn question stays")
	}
	select {
	case d := <-first:
		t.Fatalf("a withdrawn question was answered: %+v", d)
	default:
	}
}

type fakeIDE struct{ st info.IDE }

func (f *fakeIDE) ID() string                            { return "s" }
func (f *fakeIDE) IDEStatus() info.IDE                   { return f.st }
func (f *fakeIDE) IDEConnected() bool                    { return f.st.Connected }
func (f *fakeIDE) SetIDE(context.Context, bool) info.IDE { return f.st }

func TestIDEStatusAndFooter(t *testing.T) {
	h := newHarness(t, nil, nil)
	s := &fakeIDE{st: info.IDE{Available: true, Detail: "ply runs in /x, outside the workspace"}}
	h.m.cfg.Session = s
	h.m.ideCommand("")
	if !strings.Contains(h.printed(), "outside the workspace") {
		t.Fatalf("status: %s", h.printed())
	}
	if strings.Contains(h.m.footer(), "IDE connected") {
		t.Fatal("the footer says connected while it is not")
	}
	s.st = info.IDE{Available: true, Connected: true, Name: "VS Code", Diffing: true, ActiveFile: "/x/a.go", Cursor: "line 3, character 1"}
	if !strings.Contains(h.m.footer(), "IDE connected") {
		t.Fatalf("footer: %s", h.m.footer())
	}
}
