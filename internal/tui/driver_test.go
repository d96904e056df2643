package tui

import (
	"context"
	"errors"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
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
			var kept []llm.Part
			d := &driver{rounds: rounds, tools: tools, send: func(tea.Msg) {},
				cfg: Config{KeepResults: func(p []llm.Part) { kept = append(kept, p...) }}}
			d.interact(ctx, 1, []llm.Part{{Text: "go"}}, client.UserQuery)
			if len(kept) != 2 || kept[0].Response == nil || kept[0].Response.Output != "Successfully created new file a.txt (1 lines)." ||
				kept[1].Response == nil || kept[1].Response.ID != "s1" {
				t.Fatalf("kept %+v, want both responses, the write's real one first", kept)
			}
		})
	}
}
