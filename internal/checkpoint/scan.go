package checkpoint

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

// statCache is the newest scan with the time it started: an entry whose
// times lie well before that start cannot have changed without its stat
// changing.
type statCache struct {
	m       *Manifest
	scanned time.Time
	multi   []int // entries of files with more than one name, which a tracker cannot watch
	skipped []int // entries over the size cap
}

func newStatCache(m *Manifest, scanned time.Time) *statCache {
	c := &statCache{m: m, scanned: scanned}
	for i := range m.Entries {
		e := &m.Entries[i]
		e.racy = isRacy(e, scanned)
		if e.nlink > 1 {
			c.multi = append(c.multi, i)
		}
		if e.Kind == KindSkipped {
			c.skipped = append(c.skipped, i)
		}
	}
	return c
}

// lookup returns the cached entry of rel under root ri, or nil.
func (c *statCache) lookup(ri int, rel string) *Entry {
	es := c.m.Entries
	i, ok := slices.BinarySearchFunc(es, rel, func(e Entry, rel string) int {
		return cmp.Or(cmp.Compare(e.Root, ri), cmp.Compare(e.Rel, rel))
	})
	if !ok {
		return nil
	}
	return &es[i]
}

// racyWindow returns how close to a scan's start a file's times must lie
// for its stat not to prove its content: a file system with whole-second
// times (nanoseconds zero) needs two seconds, a fine-grained one a margin
// for the kernel's coarse clock.
func racyWindow(e *Entry) time.Duration {
	if e.Mtime%int64(time.Second) == 0 {
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

// isRacy reports whether e, read by a scan that started at scanned, was
// changed so close to it that a later change could leave its stat alone.
func isRacy(e *Entry, scanned time.Time) bool {
	if e.Kind == KindSkipped {
		return false // never read: its stat is all there is
	}
	limit := scanned.Add(-racyWindow(e)).UnixNano()
	return e.Mtime >= limit || e.Ctime >= limit
}

// Result says what a checkpoint recorded.
type Result struct {
	ID       string
	Files    int      // paths recorded
	Read     int      // files read because their stat changed
	Skipped  []string // files over the size cap, recorded without content
	Reused   bool     // nothing changed: ID is the previous checkpoint's
	Problems []string // paths that could not be read, directories that could not be listed

	// What .plyignore files left out, counted by a full scan only (see
	// IgnoreWarning): entries (an excluded directory once), and files git
	// tracks among them (a trusted workspace). PlyIgnoreOverruled counts
	// the entries git tracks that an untrusted workspace's .plyignore
	// would have excluded: they were recorded.
	PlyIgnored, PlyIgnoredTracked, PlyIgnoreOverruled int

	newBlobs []string // contents this checkpoint stored, to sync before its manifest
}

// Checkpoint records the state of the workspace roots (absolute, clean)
// and returns its id. When nothing changed since the newest checkpoint of
// the same roots, that checkpoint's id is returned and nothing is written.
func (s *Store) Checkpoint(ctx context.Context, roots []string) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	_, res, err := s.checkpoint(ctx, roots)
	return res, err
}

// NewID returns a fresh checkpoint id for CheckpointAs. Ids sort by the
// time they were made, so a reserved id sorts before the checkpoints
// made after it.
func (s *Store) NewID() string { return newID(time.Now()) }

// CheckpointAs is Checkpoint under id, which NewID returned: a caller
// can name a checkpoint (in a transcript) before it is recorded. The
// checkpoint is stored even when nothing changed, as a delta that names
// no path.
func (s *Store) CheckpointAs(ctx context.Context, roots []string, id string) (Result, error) {
	if !validID(id) {
		return Result{}, fmt.Errorf("checkpoint %q: not a checkpoint id", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	s.beginAhead(id)
	_, res, err := s.checkpointAs(ctx, roots, id)
	s.endAhead(err == nil)
	return res, err
}

func (s *Store) checkpoint(ctx context.Context, roots []string) (*Manifest, Result, error) {
	return s.checkpointAs(ctx, roots, "")
}

// checkpointAs records roots, under id when it is not empty.
func (s *Store) checkpointAs(ctx context.Context, roots []string, id string) (*Manifest, Result, error) {
	start := time.Now()
	cache := s.loadCache(roots)
	// Another process may have pruned packs since this one last held the
	// lock; new contents go into a pack of this checkpoint's own.
	s.packs.stale()
	pk := s.newPacker()
	s.pk = pk
	defer func() { s.pk = nil }()
	// The tracker is trusted only if this checkpoint succeeds: it drains
	// its events here, and a failed scan would lose them.
	tr := s.tr
	s.tr = nil
	m, res, err := s.trackedScan(ctx, roots, cache, start, tr)
	if errors.Is(err, errFullScan) {
		if tr != nil {
			tr.close()
		}
		if tr = nil; s.opts.Track && !s.closed && !s.untrackable {
			tr = newTracker(roots)
		}
		s.scans++
		m, res, err = s.scan(ctx, roots, cache, start, tr)
		if tr != nil && tr.exhausted {
			// Too many directories to watch: this Store scans.
			tr.close()
			tr, s.untrackable = nil, true
		}
	}
	if err != nil {
		pk.abort()
		if tr != nil {
			tr.close()
		}
		return nil, res, err
	}
	// The pack is durable before anything names its contents.
	loose, err := pk.finish()
	if err != nil {
		pk.abort()
		if tr != nil {
			tr.close()
		}
		return nil, res, err
	}
	res.newBlobs = append(res.newBlobs, loose...)
	s.tr, s.recheck = tr, nil
	switch {
	case res.Reused && id != "":
		// Nothing changed, but the caller named this checkpoint.
		m = &Manifest{ID: id, Created: start, Roots: m.Roots, Entries: m.Entries, Depth: m.Depth}
		res.ID = id
	case res.Reused:
		if m != cache.m {
			// Files were read again and found unchanged: keep the
			// checkpoint, refresh what the cache knows of them.
			s.cache = newStatCache(m, start)
		}
		return m, res, nil
	case id != "":
		m.ID, res.ID = id, id
	}
	stored := m
	if cache != nil && cache.m.Depth < maxDepth {
		// Most checkpoints change a few files: store those alone.
		if d := delta(cache.m, m); len(d.Entries)+len(d.Deleted) <= len(m.Entries)/4 {
			stored, m.Depth = d, d.Depth
		}
	}
	var prev *Manifest
	if cache != nil {
		prev = cache.m
	}
	// A hint, written without a sync: it may precede the manifest.
	if err := s.saveChanges(prev, m); err != nil {
		return nil, res, err
	}
	if err := s.saveManifest(stored, res.newBlobs); err != nil {
		return nil, res, err
	}
	if err := s.setHead(m.ID); err != nil {
		return nil, res, err
	}
	s.cache = newStatCache(m, start)
	return m, res, nil
}

// loadCache returns the stat cache for roots, reading HEAD when this
// process has not scanned yet; nil when there is none.
func (s *Store) loadCache(roots []string) *statCache {
	if s.cache != nil && !s.holds(s.cache.m.ID) {
		// Another process pruned it: the contents it names may be gone
		// too, so nothing of it can be reused.
		s.cache = nil
		if s.tr != nil {
			s.tr.close()
			s.tr = nil
		}
	}
	if s.cache == nil {
		if id := s.head(); id != "" {
			if m, err := s.Load(id); err == nil {
				s.cache = newStatCache(m, m.Created)
			}
		}
	}
	if s.cache != nil && !slices.Equal(s.cache.m.Roots, roots) {
		return nil
	}
	return s.cache
}

type scanWorker struct {
	entries  []Entry
	newBlobs []string // contents written, not yet synced
	// The checkpoint's packer, when contents go into a pack, and the
	// block this worker fills (packer.go).
	pk           *packer
	pending      []packObj
	pendingBytes int
	read         int
	skipped      []string
	problems     []string
}

// region is a directory to list: its files alone, or (deep) its whole
// subtree.
type region struct {
	root int
	rel  string // "" for the root
	deep bool
}

// scan records the whole of every root, starting tr's watches (when not
// nil) on every directory before it is listed.
func (s *Store) scan(ctx context.Context, roots []string, cache *statCache, start time.Time, tr *tracker) (*Manifest, Result, error) {
	if tr != nil {
		tr.exclude = excludeStats(roots)
	}
	s.plyIgnore.rescan()
	regions := make([]region, len(roots))
	for i := range roots {
		regions[i] = region{root: i, deep: true}
	}
	entries, res, reused, err := s.walk(ctx, roots, regions, cache, start, tr)
	if err != nil {
		return nil, res, err
	}
	return s.finish(roots, cache, start, entries, false, reused, res)
}

// finish makes the manifest of a scan from its entries, which are in
// manifest order when sorted is set.
func (s *Store) finish(roots []string, cache *statCache, start time.Time, entries []Entry, sorted bool, reused int, res Result) (*Manifest, Result, error) {
	res.Files = len(entries)
	slices.Sort(res.Skipped)
	unchanged := cache != nil && reused == len(entries) && len(entries) == len(cache.m.Entries)
	if unchanged && res.Read == 0 {
		res.ID, res.Reused = cache.m.ID, true
		return cache.m, res, nil
	}
	m := &Manifest{ID: newID(start), Created: start, Roots: slices.Clone(roots), Entries: entries}
	if unchanged {
		m.ID, m.Created, m.Depth, res.Reused = cache.m.ID, cache.m.Created, cache.m.Depth, true
	}
	if !sorted {
		m.Entries = sortEntries(entries)
	}
	res.ID = m.ID
	return m, res, nil
}

// walk records the files of regions, returning their entries (unsorted)
// and how many of them are unchanged from the cache.
func (s *Store) walk(ctx context.Context, roots []string, regions []region, cache *statCache, start time.Time, tr *tracker) ([]Entry, Result, int, error) {
	workers := s.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ws := make([]scanWorker, workers)
	for i := range ws {
		ws[i].pk = s.pk
	}
	defer func() {
		if s.pk != nil {
			for i := range ws {
				s.pk.adopt(&ws[i])
			}
		}
	}()
	var files, read, reused atomic.Int64
	var ply plyCounts
	var firstErr error
	var errOnce sync.Once
	for _, rg := range regions {
		root, ri := roots[rg.root], rg.root
		if rg.rel != "" && !isRealDir(root, rg.rel) {
			// Gone, or a link now (its name in the parent is recorded
			// by the parent's listing): nothing to list, and never the
			// link's target.
			continue
		}
		opts := tools.WalkWorkspaceOptions{Workers: workers, Dir: rg.rel, KeepPlyIgnored: s.keepPlyIgnored(root, &ply)}
		if !rg.deep {
			opts.MaxDepth = 1
		}
		if tr != nil {
			opts.BeforeDir = func(dir string) { tr.watch(ri, dir) }
		}
		unreadable, err := tools.WalkWorkspaceWith(ctx, root, opts, func(w int, f tools.WorkspaceFile) bool {
			if _, ok := isTemp(f.Rel); ok {
				sweepTemp(root, f)
				return true
			}
			sw := &ws[w]
			e, same, err := s.record(ri, f, cache, start, sw)
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				return false
			}
			if e == nil {
				return true
			}
			if same {
				reused.Add(1)
			}
			if n, b := files.Add(1), read.Add(e.readBytes); n > s.opts.MaxFiles || b > s.opts.MaxReadBytes {
				errOnce.Do(func() {
					firstErr = fmt.Errorf("%w: more than %d files or %d MB to read under %s", ErrTooLarge, s.opts.MaxFiles, s.opts.MaxReadBytes>>20, root)
				})
				return false
			}
			sw.entries = append(sw.entries, *e)
			return true
		})
		if err != nil {
			return nil, Result{}, 0, fmt.Errorf("checkpoint: scan %s: %w", root, err)
		}
		if unreadable > 0 {
			ws[0].problems = append(ws[0].problems, fmt.Sprintf("%d directories under %s could not be listed", unreadable, filepath.Join(root, rg.rel)))
		}
	}
	if firstErr != nil {
		return nil, Result{}, 0, firstErr
	}
	s.plyIgnore.noteWalk(roots, &ply)
	res := Result{PlyIgnored: int(ply.excluded.Load()), PlyIgnoredTracked: int(ply.tracked.Load()), PlyIgnoreOverruled: int(ply.overruled.Load())}
	n := 0
	for i := range ws {
		n += len(ws[i].entries)
	}
	entries := make([]Entry, 0, n)
	for i := range ws {
		entries = append(entries, ws[i].entries...)
		res.Read += ws[i].read
		res.Skipped = append(res.Skipped, ws[i].skipped...)
		res.Problems = append(res.Problems, ws[i].problems...)
		res.newBlobs = append(res.newBlobs, ws[i].newBlobs...)
	}
	return entries, res, int(reused.Load()), nil
}

// sortEntries returns es in manifest order. It sorts pointers, not the
// entries themselves, which are large to move and to compare by value.
func sortEntries(es []Entry) []Entry {
	ps := make([]*Entry, len(es))
	for i := range es {
		ps[i] = &es[i]
	}
	slices.SortFunc(ps, entryKey)
	out := make([]Entry, len(es))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// record returns the entry for f, reusing the cached one when its stat is
// unchanged; nil when f vanished or cannot be read (noted as a problem).
func (s *Store) record(ri int, f tools.WorkspaceFile, cache *statCache, start time.Time, sw *scanWorker) (ep *Entry, same bool, err error) {
	if recordHook != nil {
		recordHook(f.Rel)
	}
	if a := s.ahead; a != nil {
		// A file saved ahead of this checkpoint (ahead.go) may have
		// been written since: what was saved is what it records. The
		// read lock keeps a save from starting while the file is read.
		a.mu.RLock()
		defer a.mu.RUnlock()
		if e, ok := a.saved(ri, f.Rel); ok {
			return e, false, nil
		}
	}
	fi, err := f.Lstat()
	if err != nil {
		return nil, false, nil // removed while scanning
	}
	return s.recordStat(ri, f.Rel, f.Path, fi, cache, start, sw)
}

// recordHook, when set by a test, runs as a scan comes to each file.
var recordHook func(rel string)

// recordStat is record for the file rel of root ri, at path, whose
// Lstat is fi.
func (s *Store) recordStat(ri int, rel, path string, fi fs.FileInfo, cache *statCache, start time.Time, sw *scanWorker) (ep *Entry, same bool, err error) {
	e := entryFromStat(ri, rel, fi)
	if cache != nil {
		prev := cache.lookup(ri, rel)
		if prev != nil && prev.sameStat(&e) && !prev.racy {
			e.Hash, e.Target, e.Kind = prev.Hash, prev.Target, prev.Kind
			return &e, true, nil
		}
		defer func() {
			// Read again and found the same: not a change.
			if prev != nil && e.sameContent(prev) && e.Kind != KindSkipped {
				same = true
			}
		}()
	}
	defer func() { e.racy = isRacy(&e, start) }()
	switch {
	case e.Kind == KindLink:
		t, err := os.Readlink(path)
		if err != nil {
			sw.problems = append(sw.problems, fmt.Sprintf("%s: %v", path, err))
			return nil, false, nil
		}
		e.Target = t
	case e.Size > s.opts.MaxFileBytes:
		e.Kind = KindSkipped
		sw.skipped = append(sw.skipped, path)
	default:
		if err := s.readFile(path, &e, sw); err != nil {
			if se, ok := errors.AsType[*storeError](err); ok {
				return nil, false, se.err
			}
			sw.problems = append(sw.problems, fmt.Sprintf("%s: %v", path, err))
			return nil, false, nil
		}
		sw.read++
		e.readBytes = e.Size
	}
	return &e, false, nil
}

func entryFromStat(ri int, rel string, fi fs.FileInfo) Entry {
	e := Entry{Root: ri, Rel: rel, Kind: KindFile, Mode: fi.Mode() & modeMask, Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	if fi.Mode()&fs.ModeSymlink != 0 {
		e.Kind, e.Mode = KindLink, 0
	}
	e.Ctime, e.Ino = statExtra(fi)
	e.nlink = nlinkOf(fi)
	return e
}

// readFile hashes and stores the content of path, taking the stat from the
// open file so that it describes what was read; a file that changes while
// it is read is read again.
func (s *Store) readFile(path string, e *Entry, sw *scanWorker) error {
	for attempt := 0; ; attempt++ {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		before, err := f.Stat()
		if err != nil || !before.Mode().IsRegular() {
			f.Close()
			return fmt.Errorf("not a regular file any more")
		}
		var b bytes.Buffer
		b.Grow(int(min(before.Size(), s.opts.MaxFileBytes)) + 1)
		_, err = io.Copy(&b, io.LimitReader(f, s.opts.MaxFileBytes+1))
		after, serr := f.Stat()
		f.Close()
		if err != nil || serr != nil {
			return cmp.Or(err, serr)
		}
		ne, was := entryFromStat(e.Root, e.Rel, after), entryFromStat(e.Root, e.Rel, before)
		if attempt < 2 && (!ne.sameStat(&was) || int64(b.Len()) != after.Size()) {
			continue
		}
		*e = ne
		if int64(b.Len()) > s.opts.MaxFileBytes {
			e.Kind = KindSkipped
			sw.skipped = append(sw.skipped, path)
			return nil
		}
		// A file that kept changing while it was read is recorded with
		// the size of what was read, which its hash names: a restore
		// checks the two against each other.
		e.Size = int64(b.Len())
		sum := sha256.Sum256(b.Bytes())
		e.Hash = hex.EncodeToString(sum[:])
		return s.storeScanned(sw, e.Hash, b.Bytes())
	}
}
