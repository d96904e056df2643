package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plyhq/ply/internal/checkpoint"
)

// checkpointFigures measures the checkpoint store on the large tree: the
// first checkpoint (every file read and stored), one with nothing changed
// (stat only), one with one file changed, a restore of 100 changed files
// (which records the state it leaves too), and the store's size after 50
// checkpoints of a session that edits 10 files each. Edited files are
// restored at the end, so the tree stays as generated.
func (b *bench) checkpointFigures(dir string) (err error) {
	var srcs []string
	for _, f := range treeLayout() {
		if !f.ignored {
			srcs = append(srcs, filepath.Join(dir, filepath.FromSlash(f.rel)))
		}
	}
	group := fmt.Sprintf("checkpoints, %d-file tree (%d recorded)", treeInfo().files, len(srcs))
	roots := []string{dir}
	var cold []float64
	var s *checkpoint.Store
	var base string
	for i := range min(b.toolRuns, 3) {
		storeDir, err := os.MkdirTemp("", "ply-bench-checkpoints")
		if err != nil {
			return err
		}
		defer os.RemoveAll(storeDir)
		// A session's store: it keeps a change tracker.
		if s, err = checkpoint.Open(storeDir, checkpoint.Options{Track: true}); err != nil {
			return err
		}
		t0 := time.Now()
		r, err := s.Checkpoint(b.ctx, roots)
		if err != nil {
			return err
		}
		cold = append(cold, float64(time.Since(t0)))
		base = r.ID
		if i < min(b.toolRuns, 3)-1 {
			os.RemoveAll(storeDir)
		}
	}
	defer s.Close()
	progress("cold checkpoint in %s", time.Duration(cold[0]).Round(time.Millisecond))
	b.t.add(&row{group: group, name: "first checkpoint (every file read and stored)", unit: unitDuration, values: cold})
	defer func() {
		// Put the edited files back whatever happened.
		if _, rerr := s.Restore(b.ctx, base); err == nil {
			err = rerr
		}
	}()

	timed := func(f func() error) (float64, error) {
		t0 := time.Now()
		err := f()
		return float64(time.Since(t0)), err
	}
	var unchanged, one []float64
	for range b.toolRuns {
		d, err := timed(func() error {
			r, err := s.Checkpoint(b.ctx, roots)
			if err == nil && (!r.Reused || r.Read != 0) {
				err = fmt.Errorf("unchanged tree: read %d files", r.Read)
			}
			return err
		})
		if err != nil {
			return err
		}
		unchanged = append(unchanged, d)
	}
	b.t.add(&row{group: group, name: "checkpoint, nothing changed (session: change tracker)", unit: unitDuration, target: float64(100 * time.Millisecond), values: unchanged})
	// A store without a tracker, as a new process has: a stat per file.
	scan, err := checkpoint.Open(s.Dir(), checkpoint.Options{})
	if err != nil {
		return err
	}
	var scanned []float64
	for range b.toolRuns {
		d, err := timed(func() error {
			r, err := scan.Checkpoint(b.ctx, roots)
			if err == nil && (!r.Reused || r.Read != 0) {
				err = fmt.Errorf("unchanged tree, full scan: read %d files", r.Read)
			}
			return err
		})
		if err != nil {
			return err
		}
		scanned = append(scanned, d)
	}
	b.t.add(&row{group: group, name: "checkpoint, nothing changed (new process: stat only)", unit: unitDuration, values: scanned})
	for i := range b.toolRuns {
		if err := appendLine(srcs[i*97%len(srcs)], "one change"); err != nil {
			return err
		}
		// Out of the racy window, so that only this file is read: a
		// file changed just before a checkpoint is read again by the
		// next one.
		time.Sleep(150 * time.Millisecond)
		d, err := timed(func() error {
			r, err := s.Checkpoint(b.ctx, roots)
			if err == nil && r.Read != 1 {
				err = fmt.Errorf("one file changed: read %d files", r.Read)
			}
			return err
		})
		if err != nil {
			return err
		}
		one = append(one, d)
	}
	b.t.add(&row{group: group, name: "checkpoint, one file changed", unit: unitDuration, values: one})

	// 100 changed files, restored back and forth.
	for i := range 100 {
		if err := appendLine(srcs[i*len(srcs)/100], "hundred"); err != nil {
			return err
		}
	}
	r, err := s.Checkpoint(b.ctx, roots)
	if err != nil {
		return err
	}
	ids := []string{base, r.ID}
	var restores []float64
	for i := range b.toolRuns {
		d, err := timed(func() error {
			res, err := s.Restore(b.ctx, ids[i%2])
			if err == nil && len(res.Written) < 100 {
				err = fmt.Errorf("restore wrote %d files, want at least 100", len(res.Written))
			}
			return err
		})
		if err != nil {
			return err
		}
		restores = append(restores, d)
	}
	b.t.add(&row{group: group, name: "rewind of 100 changed files (undo checkpoint included)", unit: unitDuration, values: restores})

	// A session: 50 checkpoints, 10 files edited before each.
	if _, err := s.Restore(b.ctx, base); err != nil {
		return err
	}
	before, err := dirSize(s.Dir())
	if err != nil {
		return err
	}
	for c := range 50 {
		for k := range 10 {
			if err := appendLine(srcs[(c*10+k)*37%len(srcs)], fmt.Sprintf("edit %d", c)); err != nil {
				return err
			}
		}
		if _, err := s.Checkpoint(b.ctx, roots); err != nil {
			return err
		}
	}
	after, err := dirSize(s.Dir())
	if err != nil {
		return err
	}
	b.t.add(&row{group: group, name: "store after the first checkpoint", unit: unitBytes, values: []float64{float64(before)}})
	var tree int64
	for _, p := range srcs {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			tree += fi.Size()
		}
	}
	b.t.add(&row{group: group, name: "store / recorded tree, after the first checkpoint", unit: unitRatio, target: 0.3, values: []float64{float64(before) / float64(tree)}})
	b.t.add(&row{group: group, name: "store growth, 50 checkpoints of 10 edited files each", unit: unitBytes, values: []float64{float64(after - before)}})
	return nil
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	return n, err
}
