package main

import (
	"fmt"
	"os"
	"time"

	"github.com/plyhq/ply/internal/fleet"
)

// fleetRuns measures n headless sessions at once, each in its own git
// worktree of one repository with one PLY_HOME (internal/fleet), runs
// times: the wall time of the parallel runs and of their resumes, and
// each session's peak RSS. Every run is also checked as the
// parallel-sessions test checks it; a failed check fails the group.
func (b *bench) fleetRuns(n, runs int) error {
	var walls, resumes, rss []float64
	for range runs {
		dir, err := os.MkdirTemp("", "ply-bench-fleet-")
		if err != nil {
			return err
		}
		r, err := fleet.RunFleet(b.ctx, fleet.Options{Bin: b.bin, Dir: dir, Sessions: n, Writes: 3})
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
		walls = append(walls, float64(r.Wall))
		resumes = append(resumes, float64(r.ResumeWall))
		for _, m := range r.MaxRSS {
			rss = append(rss, float64(m))
		}
		progress("%d sessions at once: %s, resumed in %s", n, r.Wall.Round(time.Millisecond), r.ResumeWall.Round(time.Millisecond))
	}
	group := fmt.Sprintf("%d sessions at once (worktrees, one PLY_HOME)", n)
	b.t.add(&row{group: group, name: "all sessions: first start → last exit (5 rounds each, 3 writing)", unit: unitDuration, values: walls})
	b.t.add(&row{group: group, name: "all resumed from the main work tree: first start → last exit", unit: unitDuration, values: resumes})
	b.t.add(&row{group: group, name: "peak RSS of one session (every session of every run)", unit: unitBytes, values: rss})
	return nil
}
