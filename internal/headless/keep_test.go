package headless

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// script answers round i with rounds[i] (the last one again past the end).
type script struct {
	rounds [][]turn.Event
	sent   [][]llm.Part
}

func (s *script) SendMessageStream(_ context.Context, parts []llm.Part, _ client.SendType) iter.Seq[turn.Event] {
	s.sent = append(s.sent, parts)
	evs := s.rounds[min(len(s.sent)-1, len(s.rounds)-1)]
	return func(yield func(turn.Event) bool) {
		for _, e := range evs {
			if !yield(e) {
				return
			}
		}
	}
}

type runnerFunc func(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error)

func (f runnerFunc) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	return f(ctx, calls)
}

func twoCalls() []turn.Event {
	return []turn.Event{&turn.ToolCallRequest{CallID: "w1", Name: "write_file", Args: "{}"},
		&turn.ToolCallRequest{CallID: "s1", Name: "run_shell_command", Args: "{}"}, turn.Finished{}}
}

func written() []Outcome {
	return []Outcome{
		{Response: llm.FunctionResponse{ID: "w1", Name: "write_file", Output: "Successfully created new file a.txt (1 lines)."}},
		{Response: llm.FunctionResponse{ID: "s1", Name: "run_shell_command", Output: "Tool call was cancelled by the user.", IsError: true}},
	}
}

// Whatever ends a batch, its finished calls keep their real results.
func TestCutBatchKeepsResults(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func(cancel func()) error
		code int
	}{
		{"cancelled", func(cancel func()) error { cancel(); return fmt.Errorf("batch interrupted: %w", context.Canceled) }, exitcode.Cancelled},
		{"stopped by a PostToolBatch hook", func(func()) error { return &scheduler.BatchStoppedError{Reason: "enough"} }, exitcode.ToolError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &recorder{}
			var stderr strings.Builder
			cfg := Config{Format: FormatText, Stdout: io.Discard, Stderr: &stderr,
				Recorder: rec}
			tools := runnerFunc(func(context.Context, []*turn.ToolCallRequest) ([]Outcome, error) {
				return written(), tc.err(cancel)
			})
			code := Run(ctx, cfg, &script{rounds: [][]turn.Event{twoCalls()}}, tools, []llm.Part{{Text: "go"}})
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			if kept := rec.kept; len(kept) != 2 || kept[0].Response.Output != "Successfully created new file a.txt (1 lines)." {
				t.Fatalf("kept %+v", kept)
			}
		})
	}
}
