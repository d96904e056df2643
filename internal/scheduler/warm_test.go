package scheduler

import (
	"context"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// warmTool counts its Warm calls.
type warmTool struct {
	*fakeTool
	warmed int
}

func (w *warmTool) Warm() { w.warmed++ }

// Warm tells each tool a batch calls, once per batch, to get ready, and
// neither approves nor runs anything: the batch's calls still go through
// Run.
func TestWarmReadiesTheBatchsToolsWithoutRunningThem(t *testing.T) {
	ran := 0
	shell := &warmTool{fakeTool: &fakeTool{name: "shell", kind: tools.KindExecute,
		run: func(context.Context, string, tools.Output) (tools.Result, error) {
			ran++
			return tools.Result{Output: "ok"}, nil
		}}}
	s := New(tools.NewRegistry(shell, &fakeTool{name: "read", kind: tools.KindRead}), WithPolicy(YOLO{}))
	reqs := []Request{{CallID: "1", Name: "shell", Args: `{}`}, {CallID: "2", Name: "shell", Args: `{}`},
		{CallID: "3", Name: "read", Args: `{}`}, {CallID: "4", Name: "unknown", Args: `{}`}}
	s.Warm(reqs)
	if shell.warmed != 1 || ran != 0 {
		t.Fatalf("after Warm: warmed %d times (want 1), ran %d calls (want 0)", shell.warmed, ran)
	}
	if _, err := s.Run(context.Background(), reqs[:1]); err != nil {
		t.Fatal(err)
	}
	if ran != 1 {
		t.Fatalf("the warmed call ran %d times, want 1", ran)
	}
}
