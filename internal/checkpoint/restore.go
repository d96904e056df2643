package checkpoint

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// RestoreResult says what a restore did.
type RestoreResult struct {
	Target string // the checkpoint restored
	Undo   string // the checkpoint of the state before: restoring it undoes this one
	// Written and Deleted are the absolute paths changed.
	Written, Deleted []string
	// NotRestored are files the target recorded as over the size cap:
	// their content was not saved and they were left as they are.
	NotRestored []string
	// LeftInPlace are files over the size cap that the undo checkpoint
	// could not save, so they were neither deleted nor replaced: created
	// since, or ignored now and different from the target's.
	LeftInPlace []string
	// KeptIgnored are files the target does not hold because its own
	// ignore rules excluded them (rules changed since): the target never
	// recorded them, so they were not deleted.
	KeptIgnored []string
	// Partial is set when the target was never stored whole: ply stopped
	// while recording it, after saving the files it was about to change
	// (see SaveAhead). Those were restored; every other file was left as
	// it is.
	Partial bool
}

// journal is the record of a restore under way.
type journal struct {
	Target  string    `json:"target"`
	Undo    string    `json:"undo"`
	Started time.Time `json:"started"`
}

func (s *Store) journalPath() string { return filepath.Join(s.dir, "restore.journal") }

// Pending returns the target of a restore that was interrupted, if any:
// restoring it again completes it.
func (s *Store) Pending() (target string, ok bool) {
	j, err := s.readJournal()
	if err != nil || j == nil {
		return "", false
	}
	return j.Target, true
}

func (s *Store) readJournal() (*journal, error) {
	data, err := os.ReadFile(s.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read restore journal: %w", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil || !validID(j.Undo) {
		return nil, nil // torn before it was complete: nothing was changed yet
	}
	return &j, nil
}

func (s *Store) writeJournal(j journal) error {
	data, _ := json.Marshal(j)
	return writeDurable(s.journalPath(), data)
}

// fillAndClose writes data to the new file f, gives it mode and closes
// it: the part of writing a restored file that is the same everywhere.
func fillAndClose(f *os.File, data []byte, mode fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LastRewind returns the undo and target checkpoints of the newest
// completed restore.
func (s *Store) LastRewind() (undo, target string, ok bool) {
	data, err := os.ReadFile(filepath.Join(s.dir, "last-rewind"))
	if err != nil {
		return "", "", false
	}
	f := strings.Fields(string(data))
	if len(f) != 2 || !validID(f[0]) || !validID(f[1]) {
		return "", "", false
	}
	return f[0], f[1], true
}

// afterChange, when set by a test, runs after each change a restore makes;
// an error stops the restore there, as a crash would.
var afterChange func(n int) error

// beforeWrite, when set by a test, runs when a restore has found the
// directory (slash path under its root) of a file it is about to write.
var beforeWrite func(dir string)

// Restore puts the workspace back as checkpoint id recorded it. It first
// records the current state (RestoreResult.Undo) and checks that the
// content of every file it will write is in the store and intact (an
// *ObjectError otherwise, with nothing changed). Paths outside the
// recorded set (ignored files, .git) are not touched, nor are those the
// target's own ignore rules excluded (RestoreResult.KeptIgnored).
//
// ctx is obeyed until the first change; from there the restore runs to
// its end, so that it never leaves a half-restored tree by choice. After
// an interruption it did not choose (a crash, SIGKILL), Pending reports
// it, and calling Restore again, with any target, completes the job.
func (s *Store) Restore(ctx context.Context, id string) (RestoreResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := RestoreResult{Target: id}
	unlock, err := s.lock(ctx)
	if err != nil {
		return res, err
	}
	defer unlock()
	target, err := s.Load(id)
	var ahead *Manifest
	if errors.Is(err, ErrNotFound) {
		// Not stored: what was saved ahead of it, if anything, is
		// restored (ahead.go).
		if a, aerr := s.loadAhead(id); aerr == nil {
			ahead, target, err = a, a, nil
		}
	}
	if err != nil {
		return res, err
	}
	j, err := s.readJournal()
	if err != nil {
		return res, err
	}
	cur, _, err := s.checkpoint(ctx, target.Roots)
	if err != nil {
		return res, fmt.Errorf("checkpoint: record the state before restoring: %w", err)
	}
	if ahead != nil {
		target, res.Partial = overAhead(cur, ahead), true
	}
	p, err := planRestore(target, cur)
	if err != nil {
		return res, err
	}
	saved, blobs, tooLarge := s.displaced(target, cur)
	leave := skipWrites(tooLarge)
	defer func() { s.checked = nil; s.packs.dropCache() }()
	if err := s.verify(target, p, leave); err != nil {
		return res, fmt.Errorf("%w; nothing was changed", err)
	}
	if res.Undo, err = s.undoPoint(j, cur, saved, blobs); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := s.writeJournal(journal{Target: id, Undo: res.Undo, Started: time.Now()}); err != nil {
		return res, err
	}
	if err := s.apply(target, cur, p, leave, &res); err != nil {
		return res, err
	}
	if err := writeDurable(filepath.Join(s.dir, "last-rewind"), []byte(res.Undo+" "+id+"\n")); err != nil {
		return res, err
	}
	if err := os.Remove(s.journalPath()); err != nil {
		return res, fmt.Errorf("checkpoint: finish restore: %w", err)
	}
	return res, nil
}

// undoPoint returns the checkpoint that undoes a restore from cur, the
// state now, extended with the displaced files (see restore_displaced.go).
// After an interrupted restore (j) the tree is part before, part after:
// when every file in it is, with the same content, in that restore's
// target or in its undo checkpoint, nothing was done since and that undo
// checkpoint is the state to go back to; otherwise work was done on the
// half-restored tree, which only cur holds, and cur is the undo point.
func (s *Store) undoPoint(j *journal, cur *Manifest, saved []Entry, blobs []string) (string, error) {
	if j != nil && s.madeOf(cur, j.Target, j.Undo) {
		return j.Undo, nil
	}
	if len(saved) == 0 {
		return cur.ID, nil
	}
	return s.extendUndo(cur, saved, blobs)
}

// madeOf reports whether every file and link of m is in checkpoint a or
// b with the same content.
func (s *Store) madeOf(m *Manifest, a, b string) bool {
	ma, err := s.Load(a)
	if err != nil {
		return false
	}
	mb, err := s.Load(b)
	if err != nil {
		return false
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Kind != KindSkipped && !holdsSame(ma, e) && !holdsSame(mb, e) {
			return false
		}
	}
	return true
}

// holdsSame reports whether m has e's path with e's content.
func holdsSame(m *Manifest, e *Entry) bool {
	i, ok := slices.BinarySearchFunc(m.Entries, e, func(x Entry, e *Entry) int { return entryKey(&x, e) })
	return ok && m.Entries[i].sameContent(e)
}

// restorePlan is the changes that take cur to target: paths to delete,
// deepest first, and entries to write, with the current one (nil when
// absent).
type restorePlan struct {
	deletes []*Entry
	writes  [][2]*Entry
}

// planRestore merges the entries of target and cur, which are sorted,
// under the same roots.
func planRestore(target, cur *Manifest) (*restorePlan, error) {
	if !slices.Equal(target.Roots, cur.Roots) {
		return nil, fmt.Errorf("checkpoint: restore: the current state was recorded under other roots")
	}
	p := &restorePlan{}
	te, ce := target.Entries, cur.Entries
	for i, j := 0, 0; i < len(te) || j < len(ce); {
		c := 0
		switch {
		case i == len(te):
			c = 1
		case j == len(ce):
			c = -1
		default:
			c = entryKey(&te[i], &ce[j])
		}
		switch {
		case c < 0:
			if _, tmp := isTemp(te[i].Rel); !tmp { // recorded by an older ply
				p.writes = append(p.writes, [2]*Entry{&te[i], nil})
			}
			i++
		case c > 0:
			p.deletes = append(p.deletes, &ce[j])
			j++
		default:
			if e, h := &te[i], &ce[j]; e.Kind == KindSkipped && !h.sameStat(e) || e.Kind != KindSkipped && !e.sameContent(h) {
				p.writes = append(p.writes, [2]*Entry{e, h})
			}
			i++
			j++
		}
	}
	// Deepest first, so that emptied directories can go on the way up.
	slices.SortStableFunc(p.deletes, func(a, b *Entry) int { return strings.Count(b.Rel, "/") - strings.Count(a.Rel, "/") })
	return p, nil
}

// apply makes the changes of p.
func (s *Store) apply(target, cur *Manifest, p *restorePlan, leave func(root string, e *Entry) bool, res *RestoreResult) error {
	n := 0
	step := func() error {
		n++
		pauseForTest(n)
		if afterChange != nil {
			return afterChange(n)
		}
		return nil
	}
	te := target.Entries
	ignored := newTargetIgnores(s, target)
	for _, e := range p.deletes {
		root := cur.Roots[e.Root]
		path := filepath.Join(root, filepath.FromSlash(e.Rel))
		if ignored.excluded(e.Root, e.Rel) {
			res.KeptIgnored = append(res.KeptIgnored, path)
			continue
		}
		if e.Kind == KindSkipped {
			res.LeftInPlace = append(res.LeftInPlace, path)
			continue
		}
		if err := removeEntry(root, e.Rel); err != nil {
			return err
		}
		res.Deleted = append(res.Deleted, path)
		removeEmptyDirs(root, e.Rel, func(d string) bool { return holdsUnder(te, e.Root, d) })
		if err := step(); err != nil {
			return err
		}
	}
	for _, w := range p.writes {
		e := w[0]
		root := target.Roots[e.Root]
		path := filepath.Join(root, filepath.FromSlash(e.Rel))
		if e.Kind == KindSkipped {
			res.NotRestored = append(res.NotRestored, path)
			continue
		}
		if leave(root, e) {
			res.LeftInPlace = append(res.LeftInPlace, path)
			continue
		}
		if err := s.writeEntry(root, e); err != nil {
			return err
		}
		res.Written = append(res.Written, path)
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// holdsUnder reports whether the sorted entries hold a path under the
// directory dir of root ri.
func holdsUnder(es []Entry, ri int, dir string) bool {
	prefix := dir + "/"
	i, _ := slices.BinarySearchFunc(es, prefix, func(e Entry, p string) int {
		return cmp.Or(cmp.Compare(e.Root, ri), strings.Compare(e.Rel, p))
	})
	return i < len(es) && es[i].Root == ri && strings.HasPrefix(es[i].Rel, prefix)
}
