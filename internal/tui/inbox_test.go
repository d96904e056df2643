package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// A round in the inbox starts at once when the UI is idle, shown with its
// source; one that arrives during an interaction starts after it.
func TestInboxRoundsStartWhenIdle(t *testing.T) {
	var mu sync.Mutex
	var types []client.SendType
	gate := make(chan struct{})
	rounds := roundsFunc(func(_ context.Context, p []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		types = append(types, typ)
		n := len(types)
		mu.Unlock()
		if n == 2 {
			<-gate // the notification round streams until the test lets it end
		}
		return []turn.Event{turn.Content{Text: "reply " + p[0].Text}, turn.Finished{Reason: llm.FinishStop}}
	})
	h := newHarness(t, rounds, nil)
	in := inbox.New()
	rec := &record{}
	h.m.cfg.Inbox, h.m.drv.cfg.Inbox = in, in
	h.m.cfg.Recorder, h.m.drv.cfg.Recorder = rec, rec

	in.Post(inbox.Round{Type: client.Notification, Source: "agent agent-1", Text: "n1", Summary: "scan finished"})
	h.update(inboxMsg{})
	// The loop announces the round as it starts it.
	h.pumpUntil(func(msg tea.Msg) bool { _, ok := msg.(roundMsg); return ok })
	if !h.m.busy || !strings.Contains(h.printed(), "agent agent-1 (notification): scan finished") {
		t.Fatalf("idle UI did not start the round; printed:\n%s", h.printed())
	}
	// A second one while this round runs waits.
	in.Post(inbox.Round{Type: client.Teammate, Source: "agent agent-2", Text: "t1"})
	h.update(inboxMsg{})
	if in.Len() != 1 {
		t.Fatal("a round was taken while one ran")
	}
	close(gate)
	h.pumpUntil(isDone)
	h.pumpUntil(isDone)
	mu.Lock()
	defer mu.Unlock()
	if len(types) != 2 || types[0] != client.Notification || types[1] != client.Teammate {
		t.Fatalf("rounds %v", types)
	}
	if recorded := strings.Join(rec.rounds, ","); recorded != "agent agent-1,agent agent-2" {
		t.Errorf("recorded %v", recorded)
	}
}

// A background subagent's approval is labelled, does not replace the
// main loop's open dialog but waits for it, and outlives the end of the
// main interaction.
func TestBackgroundApprovalsQueue(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	mainReply, bgReply := make(chan scheduler.Decision, 1), make(chan scheduler.Decision, 1)
	h.update(approvalMsg{call: callView{id: "m1", name: "run_shell_command", args: `{"command":"ls"}`}, reply: mainReply})
	h.update(approvalMsg{call: callView{id: "b1", name: "write_file", args: `{"file_path":"x","content":"y"}`}, reply: bgReply, from: "explore (agent-1)"})
	if h.m.approval == nil || h.m.approval.call.id != "m1" || len(h.m.waiting) != 1 {
		t.Fatalf("the main dialog was replaced: %+v", h.m.approval)
	}
	// The main interaction ends: its dialog is cancelled, the other opens.
	h.update(doneMsg{id: 1})
	if d := <-mainReply; d.Outcome != scheduler.OutcomeCancel {
		t.Fatalf("main dialog answered %v", d.Outcome)
	}
	if h.m.approval == nil || h.m.approval.call.id != "b1" {
		t.Fatal("the subagent's dialog did not open")
	}
	if v := h.view(); !strings.Contains(v, "explore (agent-1) asks") {
		t.Fatalf("the dialog does not say who asks:\n%s", v)
	}
	h.update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if d := <-bgReply; d.Outcome != scheduler.OutcomeAllowOnce {
		t.Fatalf("answered %v", d.Outcome)
	}
}
