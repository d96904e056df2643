package fleet

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/plytest"
)

var ply plytest.Binary

func TestMain(m *testing.M) {
	code := m.Run()
	ply.Remove()
	os.Exit(code)
}

// Sixteen headless sessions at once, each in its own worktree of one
// repository, sharing one PLY_HOME: all succeed, every transcript loads
// and resumes (from the main work tree, back into its worktree), every
// checkpoint verifies, and no worktree holds another's files.
func TestSixteenSessionsInParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ply and runs 32 ply processes")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := ply.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := RunFleet(ctx, Options{Bin: bin, Dir: t.TempDir(), Sessions: 16, Writes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoints < 16 {
		t.Fatalf("%d checkpoints verified, want at least one a session", r.Checkpoints)
	}
	rss := slices.Clone(r.MaxRSS)
	slices.Sort(rss)
	t.Logf("16 sessions: %s wall, resumed in %s; peak RSS per session median %.1f MiB, max %.1f MiB; %d checkpoints verified",
		r.Wall.Round(time.Millisecond), r.ResumeWall.Round(time.Millisecond),
		float64(rss[len(rss)/2])/(1<<20), float64(rss[len(rss)-1])/(1<<20), r.Checkpoints)
}
