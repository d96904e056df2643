package rewind

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/session"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// partialSession is a store whose first prompt's checkpoint was never
// stored (ply stopped while taking it) but had main.go saved ahead of
// the batch that changed it and new.txt saved as absent; a later
// checkpoint holds the tree after the batch.
func partialSession(t *testing.T) (*Rewinder, *bytes.Buffer) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "other.go"), []byte("package main // other\n"), 0o644))
	store, err := checkpoint.Open(t.TempDir(), checkpoint.Options{})
	must(t, err)
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	first := store.NewID()
	must(t, store.SaveAhead(ctx, []string{root}, first, []string{filepath.Join(root, "main.go"), filepath.Join(root, "new.txt")}))
	must(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main // edited\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "new.txt"), []byte("new\n"), 0o644))
	later, err := store.Checkpoint(ctx, []string{root})
	must(t, err)
	out := &bytes.Buffer{}
	now := time.Now()
	return &Rewinder{Store: store, Out: out, Log: &session.PromptLog{Prompts: []session.Prompt{
		{N: 1, Time: now, Text: "one", Checkpoint: first},
		{N: 2, Time: now, Text: "two", Checkpoint: later.ID},
	}}}, out
}

// A prompt whose checkpoint only has what was saved ahead of it is
// listed as partial, with the saved files that changed since counted;
// not as pruned.
func TestListCountsAPartialCheckpoint(t *testing.T) {
	r, out := partialSession(t)
	must(t, r.List(context.Background()))
	lines := strings.Split(out.String(), "\n")
	if strings.Contains(lines[0], "pruned") || !strings.Contains(lines[0], "partial checkpoint, 2 files changed since") {
		t.Errorf("prompt 1's line: %q, want a partial checkpoint with 2 files changed since", lines[0])
	}
	if !strings.Contains(lines[1], "0 files changed since") {
		t.Errorf("prompt 2's line: %q", lines[1])
	}
	pts := r.Points(context.Background())
	if pts[0].Changed != 2 || !pts[0].Partial || pts[1].Partial {
		t.Errorf("points: %+v", pts)
	}
	if got := pts[0].Since(); got != "partial checkpoint, 2 files changed since" {
		t.Errorf("point 1 says %q", got)
	}
}
