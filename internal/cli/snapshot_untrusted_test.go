package cli

import (
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox"
)

// In a folder the user has not trusted, the first request still shows the
// repository's state — the user's uncommitted work — read by git under
// the read-only profile.
func TestSnapshotInAnUntrustedFolder(t *testing.T) {
	dir := gitRepoWithCommit(t)
	writeFile(t, filepath.Join(dir, "main.go"), "package main // changed\n", 0o644)
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	if r := runPly(t, dir, srv, "", "-p", "what changed?"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	system := srv.Requests()[0].Messages[0].Text()
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		if !strings.Contains(system, "no read-only profile") {
			t.Errorf("the prompt does not say why git was not read:\n%s", system)
		}
		t.Skipf("the kernel has no read-only profile (%v)", err)
	}
	// The snapshot is bounded so that a slow git never holds the first
	// request; TestSnapshotUntrusted checks the confined git without it.
	skipIfSnapshotLate(t, system)
	// The user's uncommitted work. (The recent commits come from a git
	// log that runs beside status within the same budget, and are left
	// out without a word when it does not answer in time, as on a loaded
	// machine: TestSnapshotUntrusted checks them without the budget.)
	if !strings.Contains(system, " M main.go") {
		t.Errorf("the system prompt lacks the uncommitted change:\n%s", system)
	}
}
