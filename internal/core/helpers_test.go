package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/tools"
)

func writeFile(t testing.TB, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// oneFileWorkspace returns a workspace holding a.txt and a new
// checkpoint store for it.
func oneFileWorkspace(t testing.TB) (*tools.Workspace, *checkpoint.Store) {
	t.Helper()
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
	return ws, store
}
