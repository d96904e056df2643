package core

import (
	"context"
	"time"

	"github.com/plyhq/ply/internal/sysprompt"
)

// snapshotBudget is how long the repository snapshot may take from the
// start of New. It runs beside the rest of the start-up; git status
// on a small repository answers in a few milliseconds, and past the
// budget the prompt says it was skipped rather than hold the first
// request.
const snapshotBudget = 50 * time.Millisecond

// startSnapshot begins the repository snapshot, git getting env (the
// environment of every child process, secrets withheld); the function it
// returns waits for it, never past the budget.
func startSnapshot(ctx context.Context, dir string, trusted bool, env []string) func() *sysprompt.Repo {
	ctx, cancel := context.WithTimeout(ctx, snapshotBudget)
	done := make(chan *sysprompt.Repo, 1)
	go func() { done <- sysprompt.Snapshot(ctx, dir, trusted, env) }()
	return func() *sysprompt.Repo {
		defer cancel()
		return <-done
	}
}

// sandboxSummary is the prompt's line on --sandbox, "" without it.
func sandboxSummary(o Sandbox) string {
	if !o.Enabled {
		return ""
	}
	s := "shell commands may write only in the workspace and the temp directory"
	if o.Network {
		return s + "; they may use the network"
	}
	return s + ", and may not use the network"
}
