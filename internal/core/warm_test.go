package core

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// warmingTool may write anything (as a shell command may) and records,
// when told to warm up, how many checkpoints the store holds.
type warmingTool struct {
	store       *checkpoint.Store
	warmedAt    int // checkpoints stored when Warm was called; -1: never
	checkpoints int // checkpoints stored when it ran
}

func (w *warmingTool) Name() string            { return "sh" }
func (w *warmingTool) Description() string     { return "writes anything" }
func (w *warmingTool) Kind() tools.Kind        { return tools.KindExecute }
func (w *warmingTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (w *warmingTool) Warm() {
	ids, _ := w.store.IDs()
	w.warmedAt = len(ids)
}
func (w *warmingTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	ids, _ := w.store.IDs()
	w.checkpoints = len(ids)
	return tools.Result{Output: "ok"}, nil
}

// A batch's tools are told to warm up before the checkpoint the batch
// waits for, so that their set-up (the shell's guardian) overlaps it;
// the call itself still runs only after the checkpoint is stored.
func TestRunToolsWarmsBeforeTheCheckpoint(t *testing.T) {
	ws, store := oneFileWorkspace(t)
	sh := &warmingTool{store: store, warmedAt: -1}
	reg := tools.NewRegistry(sh)
	cp := &checkpointer{store: store, roots: ws.Roots(), reg: reg, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r := &Runner{sched: scheduler.New(reg, scheduler.WithPolicy(scheduler.YOLO{})), chat: chat.New(nil, chat.Config{}, nil), cp: cp}
	out, err := r.RunTools(context.Background(), []*turn.ToolCallRequest{{CallID: "c1", Name: "sh", Args: `{}`}})
	if err != nil || len(out) != 1 || out[0].Response.IsError {
		t.Fatalf("RunTools: %v %+v", err, out)
	}
	if sh.warmedAt != 0 {
		t.Fatalf("warmed with %d checkpoints stored, want 0: before the batch's checkpoint", sh.warmedAt)
	}
	if sh.checkpoints != 1 {
		t.Fatalf("the call ran with %d checkpoints stored, want 1", sh.checkpoints)
	}
}
