package core

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
)

// /diff of a session whose first checkpoint was never stored whole (ply
// stopped while taking it, after saving ahead the files its first batch
// wrote) compares those files, and says the comparison is partial,
// rather than failing as though the checkpoint were pruned.
func TestDiffAgainstAPartialFirstCheckpoint(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n", 0o644)
	writeFile(t, filepath.Join(root, "other.go"), "package main // other\n", 0o644)
	store, err := checkpoint.Open(t.TempDir(), checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	id := store.NewID()
	if err := store.SaveAhead(context.Background(), []string{root}, id, []string{filepath.Join(root, "main.go")}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "main.go"), "package main // edited\n", 0o644)
	writeFile(t, filepath.Join(root, "other.go"), "package main // other, not saved ahead\n", 0o644)

	w, err := session.Create(home, root, "s1", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AppendCheckpoint(id)
	w.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "edit main.go"}}})
	c := &Session{sess: &opened{w: w}, cp: &checkpointer{store: store, roots: []string{root}}}

	got, err := c.Diff(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !got.Partial || len(got.Files) != 1 || got.Files[0].Path != "main.go" ||
		got.Files[0].Old != "package main\n" || got.Files[0].New != "package main // edited\n" {
		t.Errorf("diff against the partial first checkpoint: %+v", got)
	}
}
