package cli

import (
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// In a folder the user has not trusted, the first request still shows the
// repository's state — the user's uncommitted work — read without running
// anything the repository configures.
func TestSnapshotInAnUntrustedFolder(t *testing.T) {
	dir := gitRepoWithCommit(t)
	writeFile(t, filepath.Join(dir, "main.go"), "package main // changed\n", 0o644)
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	if r := runPly(t, dir, srv, "", "-p", "what changed?"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	system := srv.Requests()[0].Messages[0].Text()
	// The repository is read in process, which needs no kernel profile:
	// git, confined, runs only for what that reader declines
	// (TestSnapshotUntrusted in sysprompt checks that path). The snapshot
	// is bounded so that it never holds the first request.
	skipIfSnapshotLate(t, system)
	// The user's uncommitted work.
	if !strings.Contains(system, " M main.go") {
		t.Errorf("the system prompt lacks the uncommitted change:\n%s", system)
	}
}
