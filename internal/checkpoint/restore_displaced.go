package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A restore writes every path of its target that the current state does
// not hold with the same content. Most such paths are absent now; but a
// path the target recorded may exist and be ignored now (its ignore rules
// changed since), so that the undo checkpoint, made under the current
// rules, does not hold what it says. Overwriting it would lose that for
// good: the undo checkpoint is extended with those files first.

// displaced returns the entries, as they are now, of the paths target
// holds that cur does not and that exist with other content; and the
// paths among them too large to save, which are left alone.
func (s *Store) displaced(target, cur *Manifest) (saved []Entry, blobs, tooLarge []string) {
	te, ce := target.Entries, cur.Entries
	j := 0
	var sw scanWorker
	for i := range te {
		e := &te[i]
		for j < len(ce) && entryKey(&ce[j], e) < 0 {
			j++
		}
		if j < len(ce) && entryKey(&ce[j], e) == 0 || e.Kind == KindSkipped {
			continue
		}
		p := filepath.Join(target.Roots[e.Root], filepath.FromSlash(e.Rel))
		fi, err := os.Lstat(p)
		if err != nil {
			continue // absent (or unreadable: the write will say)
		}
		now := entryFromStat(e.Root, e.Rel, fi)
		switch {
		case now.Kind == KindLink:
			if now.Target, err = os.Readlink(p); err != nil {
				continue
			}
		case !fi.Mode().IsRegular():
			continue // a directory or special file: the write fails and says so
		case fi.Size() > s.opts.MaxFileBytes:
			tooLarge = append(tooLarge, p)
			continue
		default:
			if err := s.readFile(p, &now, &sw); err != nil || now.Kind == KindSkipped {
				tooLarge = append(tooLarge, p)
				continue
			}
		}
		if !now.sameContent(e) {
			saved = append(saved, now)
		}
	}
	return saved, sw.newBlobs, tooLarge
}

// extendUndo stores cur with the displaced entries added, as a new
// checkpoint (a delta from cur), and returns its id.
func (s *Store) extendUndo(cur *Manifest, saved []Entry, blobs []string) (string, error) {
	m := &Manifest{ID: newID(time.Now()), Created: cur.Created, Roots: cur.Roots,
		Entries: mergeSorted(cur.Entries, sortEntries(saved))}
	stored := m
	if cur.Depth < maxDepth {
		stored = delta(cur, m)
	}
	if err := s.saveManifest(stored, blobs); err != nil {
		return "", fmt.Errorf("checkpoint: save the files a restore replaces: %w", err)
	}
	return m.ID, nil
}

// skipWrites reports, for apply, the target entries whose paths are in
// paths (absolute).
func skipWrites(paths []string) func(root string, e *Entry) bool {
	if len(paths) == 0 {
		return func(string, *Entry) bool { return false }
	}
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	return func(root string, e *Entry) bool { return set[filepath.Join(root, filepath.FromSlash(e.Rel))] }
}
