package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// A batch cut short (Esc while a call runs, a hook that stops it) keeps
// the results of the calls that finished: the driver hands them to
// KeepResults, so the next prompt's request carries them.
func TestDriverKeepsResultsOfACutBatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
		err    error
	}{
		{name: "cancelled while a call runs", cancel: true, err: context.Canceled},
		{name: "stopped by a hook", err: errors.New("scheduler: a PostToolBatch hook stopped the agent after this batch.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rounds := roundsFunc(func(context.Context, []llm.Part, client.SendType) []turn.Event {
				return []turn.Event{&turn.ToolCallRequest{CallID: "w1", Name: "write_file"},
					&turn.ToolCallRequest{CallID: "s1", Name: "run_shell_command"}, turn.Finished{}}
			})
			tools := toolsFunc(func(context.Context, []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
				if tc.cancel {
					cancel()
				}
				return []llm.FunctionResponse{
					{ID: "w1", Name: "write_file", Output: "Successfully created new file a.txt (1 lines)."},
					{ID: "s1", Name: "run_shell_command", Output: "Tool call was cancelled by the user.", IsError: true},
				}, fmt.Errorf("batch: %w", tc.err)
			})
			rec := &record{}
			d := &driver{rounds: rounds, tools: tools, send: func(tea.Msg) {}, cfg: Config{Recorder: rec}}
			d.interact(ctx, 1, loop.Input{Parts: []llm.Part{{Text: "go"}}, Type: client.UserQuery})
			if kept := rec.kept; len(kept) != 2 || kept[0].Response == nil || kept[0].Response.Output != "Successfully created new file a.txt (1 lines)." ||
				kept[1].Response == nil || kept[1].Response.ID != "s1" {
				t.Fatalf("kept %+v, want both responses, the write's real one first", kept)
			}
		})
	}
}

// Reaching the per-turn cap asks the user; yes raises the cap and the
// interaction goes on, no ends it as before.
func TestDriverAsksToGoOnAtTheTurnCap(t *testing.T) {
	capHit := turn.LoopDetected{Guard: string(loopdetect.GuardTurnCap), Message: "ply stopped: more than 3 tool calls"}
	for _, tc := range []struct {
		name    string
		answer  scheduler.Outcome
		rounds  int
		extends []int
	}{
		{"go on", scheduler.OutcomeAllowOnce, 2, []int{3}},
		{"stop", scheduler.OutcomeDeny, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent []llm.Part
			var types []client.SendType
			rounds := roundsFunc(func(_ context.Context, p []llm.Part, typ client.SendType) []turn.Event {
				sent, types = append(sent, p...), append(types, typ)
				if len(types) == 1 {
					return []turn.Event{capHit}
				}
				return []turn.Event{turn.Content{Text: "went on."}, turn.Finished{}}
			})
			msgs := make(chan tea.Msg, 64)
			cp := &turnCap{n: 3}
			d := &driver{rounds: rounds, send: func(m tea.Msg) {
				if a, ok := m.(approvalMsg); ok {
					a.reply <- scheduler.Decision{Outcome: tc.answer}
				}
				msgs <- m
			}, cfg: Config{TurnCap: cp}}
			d.interact(context.Background(), 1, loop.Input{Parts: []llm.Part{{Text: "go"}}, Type: client.UserQuery})
			if len(types) != tc.rounds || fmt.Sprint(cp.extends) != fmt.Sprint(tc.extends) {
				t.Fatalf("rounds %v, extends %v", types, cp.extends)
			}
			asked, stopped := false, false
			close(msgs)
			for m := range msgs {
				switch m := m.(type) {
				case approvalMsg:
					asked = strings.Contains(m.call.name, "another 3 tool calls")
				case eventMsg:
					if _, ok := m.ev.(turn.LoopDetected); ok {
						stopped = true
					}
				case doneMsg:
					if m.err != nil {
						t.Fatalf("done with %v", m.err)
					}
				}
			}
			if !asked {
				t.Fatal("the user was not asked")
			}
			if tc.rounds == 2 && (types[1] != client.Hook || !strings.Contains(sent[1].Text, "another 3 tool calls")) {
				t.Fatalf("the interaction went on with %v %q", types[1], sent[1].Text)
			}
			if stopped != (tc.rounds == 1) {
				t.Fatalf("the cap's stop was shown: %v", stopped)
			}
		})
	}
}

// turnCap is a loop.TurnCap that notes how it was raised.
type turnCap struct {
	n       int
	extends []int
}

func (c *turnCap) TurnCap() int        { return c.n }
func (c *turnCap) ExtendTurnCap(n int) { c.extends = append(c.extends, n) }
