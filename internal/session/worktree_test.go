package session

import (
	"testing"
)

// A session working in a git worktree says so in its metadata line, and a
// fork of it works in the same one.
func TestWorktreeInMeta(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	wt := &Worktree{Name: "fix", Branch: "ply/fix", Repo: "/r"}
	w, err := CreateIn(home, ws, "s1", "m", wt)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Worktree == nil || *tr.Meta.Worktree != *wt {
		t.Fatalf("loaded worktree = %+v, want %+v", tr.Meta.Worktree, wt)
	}
	fw, ftr, err := Fork(home, ws, w.Path(), "s2", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if ftr.Meta.Worktree == nil || *ftr.Meta.Worktree != *wt || fw.Meta().Worktree == nil {
		t.Fatalf("fork's worktree = %+v / %+v, want %+v", ftr.Meta.Worktree, fw.Meta().Worktree, wt)
	}
}
