package core

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// A batch of read-only calls records nothing; one call that may write
// records the workspace first.
func TestCheckpointBeforeWritingBatchesOnly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	store, err := checkpoint.Open(t.TempDir(), checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp := &checkpointer{store: store, roots: ws.Roots(), reg: tools.NewRegistry(tools.NewReadFile(ws), tools.NewWriteFile(ws)),
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := context.Background()
	cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "read_file"}, {Name: "read_file"}})
	if ids, _ := store.IDs(); len(ids) != 0 {
		t.Fatalf("a read-only batch recorded %d checkpoints", len(ids))
	}
	cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "read_file"}, {Name: "write_file"}})
	if ids, _ := store.IDs(); len(ids) != 1 {
		t.Fatalf("a writing batch recorded %d checkpoints, want 1", len(ids))
	}
	var off *checkpointer // checkpointing off: a no-op, not a panic
	off.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "write_file"}})
}

func BenchmarkBeforeToolsReadOnly(b *testing.B) {
	ws, _ := tools.NewWorkspace(b.TempDir())
	store, _ := checkpoint.Open(b.TempDir(), checkpoint.Options{})
	cp := &checkpointer{store: store, roots: ws.Roots(), reg: tools.NewRegistry(tools.NewReadFile(ws), tools.NewWriteFile(ws))}
	calls := []*turn.ToolCallRequest{{Name: "read_file"}, {Name: "read_file"}, {Name: "read_file"}}
	ctx := context.Background()
	for b.Loop() {
		cp.beforeTools(ctx, calls)
	}
}
