package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// errFullScan says that the tracker cannot tell what changed.
var errFullScan = errors.New("checkpoint: full scan needed")

// trackedScan records the workspace from the cache and what tr saw since
// the cache was made: only the directories where something happened are
// listed again. It returns errFullScan when that is not enough to know
// the workspace (no tracker, its queue overflowed, ignore rules changed).
func (s *Store) trackedScan(ctx context.Context, roots []string, cache *statCache, start time.Time, tr *tracker) (*Manifest, Result, error) {
	if tr == nil || cache == nil || !slices.Equal(tr.roots, roots) {
		return nil, Result{}, errFullScan
	}
	c := tr.drain()
	if c.full || !slices.Equal(tr.exclude, excludeStats(roots)) || s.plyIgnore.changed(roots) {
		return nil, Result{}, errFullScan
	}
	// Files written after they were saved ahead of the checkpoint the
	// cache is (ahead.go) may have been written before the tracker
	// watched their directory.
	for d := range s.recheck {
		if _, ok := c.dirs[d]; !ok {
			c.dirs[d] = false
		}
	}
	// A file with several names can change through a name in a directory
	// nobody watches: its stat is checked every time.
	for _, i := range cache.multi {
		e := &cache.m.Entries[i]
		fi, err := os.Lstat(filepath.Join(roots[e.Root], filepath.FromSlash(e.Rel)))
		if err == nil {
			if now := entryFromStat(e.Root, e.Rel, fi); now.sameStat(e) && now.nlink == e.nlink {
				continue
			}
		}
		if d := (trackedDir{e.Root, parentDir(e.Rel)}); !c.dirs[d] {
			c.dirs[d] = false
		}
	}
	regions := collapse(c.dirs)
	if len(regions) == 0 {
		res := Result{ID: cache.m.ID, Files: len(cache.m.Entries), Reused: true}
		res.Skipped = cache.skippedPaths(roots)
		return cache.m, res, nil
	}
	if len(regions) > max(16, tr.watched()/8) {
		// Changes all over (a branch switched, a restore): one walk of
		// everything costs less than many small ones. The watches stay.
		return s.scan(ctx, roots, cache, start, tr)
	}
	var walked []Entry
	var res Result
	reused := 0
	var covered []region
	for len(regions) > 0 {
		covered = append(covered, regions...)
		for _, rg := range regions {
			if rg.deep && rg.rel == "" {
				return nil, Result{}, errFullScan
			}
		}
		w, r, n, err := s.walk(ctx, roots, regions, cache, start, tr)
		if err != nil {
			return nil, res, err
		}
		walked, reused = append(walked, w...), reused+n
		res.Read += r.Read
		res.Skipped = append(res.Skipped, r.Skipped...)
		res.Problems = append(res.Problems, r.Problems...)
		res.newBlobs = append(res.newBlobs, r.newBlobs...)
		regions = otherNames(roots, cache, w, covered)
	}
	kept := outside(cache.m.Entries, covered)
	if n := int64(len(kept) + len(walked)); n > s.opts.MaxFiles {
		return nil, res, fmt.Errorf("%w: more than %d files", ErrTooLarge, s.opts.MaxFiles)
	}
	for i := range kept {
		if kept[i].Kind == KindSkipped {
			res.Skipped = append(res.Skipped, filepath.Join(roots[kept[i].Root], filepath.FromSlash(kept[i].Rel)))
		}
	}
	entries := mergeSorted(kept, sortEntries(walked))
	return s.finish(roots, cache, start, entries, true, reused+len(kept), res)
}

// otherNames returns the directories, outside covered, of the other
// names of the files with several names among walked whose stat changed
// (a link made or removed, a write through the other name): no watch of
// their directory saw it.
func otherNames(roots []string, cache *statCache, walked []Entry, covered []region) []region {
	inos := map[uint64]bool{}
	for i := range walked {
		if walked[i].nlink > 1 && walked[i].Ino != 0 {
			inos[walked[i].Ino] = true
		}
	}
	if len(inos) == 0 {
		return nil
	}
	dirs := map[trackedDir]bool{}
	for i := range cache.m.Entries {
		e := &cache.m.Entries[i]
		if !inos[e.Ino] || e.Kind == KindLink || inAny(covered, e) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(roots[e.Root], filepath.FromSlash(e.Rel)))
		if err == nil {
			if now := entryFromStat(e.Root, e.Rel, fi); now.sameStat(e) && now.nlink == e.nlink {
				continue
			}
		}
		dirs[trackedDir{e.Root, parentDir(e.Rel)}] = false
	}
	return collapse(dirs)
}

func inAny(rs []region, e *Entry) bool {
	for i := range rs {
		if rs[i].inside(e) {
			return true
		}
	}
	return false
}

// collapse returns the regions of dirs, sorted, without those inside a
// deep one.
func collapse(dirs map[trackedDir]bool) []region {
	var rs []region
	for d, deep := range dirs {
		rs = append(rs, region{root: d.root, rel: d.rel, deep: deep})
	}
	slices.SortFunc(rs, func(a, b region) int {
		if a.root != b.root {
			return a.root - b.root
		}
		return strings.Compare(a.rel, b.rel)
	})
	out := rs[:0]
	for _, r := range rs {
		covered := false
		for _, o := range out {
			if o.deep && o.root == r.root && (o.rel == "" || strings.HasPrefix(r.rel, o.rel+"/")) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// inside reports whether e lies in rg.
func (rg *region) inside(e *Entry) bool {
	if e.Root != rg.root {
		return false
	}
	rest := e.Rel
	if rg.rel != "" {
		if !strings.HasPrefix(e.Rel, rg.rel) || len(e.Rel) <= len(rg.rel) || e.Rel[len(rg.rel)] != '/' {
			return false
		}
		rest = e.Rel[len(rg.rel)+1:]
	}
	return rg.deep || !strings.Contains(rest, "/")
}

// outside returns the entries (sorted) that lie in none of regions; the
// entries of a region are found by binary search, as a run of those that
// start with its path.
func outside(entries []Entry, regions []region) []Entry {
	drop := make([]bool, len(entries))
	for i := range regions {
		rg := &regions[i]
		prefix := rg.rel
		if prefix != "" {
			prefix += "/"
		}
		lo, _ := slices.BinarySearchFunc(entries, prefix, func(e Entry, p string) int {
			if e.Root != rg.root {
				return e.Root - rg.root
			}
			return strings.Compare(e.Rel, p)
		})
		for j := lo; j < len(entries) && entries[j].Root == rg.root && strings.HasPrefix(entries[j].Rel, prefix); j++ {
			if rg.inside(&entries[j]) {
				drop[j] = true
			}
		}
	}
	kept := make([]Entry, 0, len(entries))
	for i := range entries {
		if !drop[i] {
			kept = append(kept, entries[i])
		}
	}
	return kept
}

// mergeSorted merges two sorted lists of distinct paths.
func mergeSorted(a, b []Entry) []Entry {
	out := make([]Entry, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if entryKey(&a[i], &b[j]) <= 0 {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// skippedPaths returns the paths of the cached entries over the size cap.
func (c *statCache) skippedPaths(roots []string) []string {
	var out []string
	for _, i := range c.skipped {
		e := &c.m.Entries[i]
		out = append(out, filepath.Join(roots[e.Root], filepath.FromSlash(e.Rel)))
	}
	return out
}

// excludeStats describes each root's .git/info/exclude, which the scan
// reads as ignore rules but no watched directory holds.
func excludeStats(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		fi, err := os.Lstat(filepath.Join(r, ".git", "info", "exclude"))
		if err != nil {
			continue
		}
		e := entryFromStat(0, "", fi)
		out[i] = fmt.Sprint(e.Size, e.Mtime, e.Ctime, e.Ino, e.Mode)
	}
	return out
}

// parentDir returns the directory of rel, "" for the root.
func parentDir(rel string) string {
	if p := path.Dir(rel); p != "." {
		return p
	}
	return ""
}
