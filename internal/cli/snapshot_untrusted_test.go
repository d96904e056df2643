package cli

import (
	"os"
	"os/exec"
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
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git program")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n", 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "main.go"}, {"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "first commit"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
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
	if strings.Contains(system, "within the start-up time budget") {
		// The snapshot is bounded so that a slow git never holds the
		// first request; a loaded machine can pass that bound.
		t.Skip("git did not answer within the start-up budget on this machine; TestSnapshotUntrusted checks the confined git without it")
	}
	// The user's uncommitted work. (The recent commits come from a git
	// log that runs beside status within the same budget, and are left
	// out without a word when it does not answer in time, as on a loaded
	// machine: TestSnapshotUntrusted checks them without the budget.)
	if !strings.Contains(system, " M main.go") {
		t.Errorf("the system prompt lacks the uncommitted change:\n%s", system)
	}
}
