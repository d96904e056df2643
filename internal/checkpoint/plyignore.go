package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A .plyignore belongs to the workspace, and so to whoever wrote the
// repository: in a folder the user has not trusted, one reading "*" would
// turn checkpoints off without a word. There, a .plyignore may exclude
// only paths git does not track; a directory holding tracked files is
// listed all the same. In a trusted folder it excludes what it says, and
// a checkpoint counts what it left out so that the caller can say so when
// that is most of the tree or files git tracks.

// gitIndex is what a Store knows of one root's git index.
type gitIndex struct {
	looked bool   // gitDirOf was asked since the last full scan
	file   string // the index file; "" outside a repository
	prefix string // the root's path in the work tree
	stamp  string // the index's stat when set was read
	set    *trackedSet
	err    error // reading the index failed: nothing is known
}

// plyIgnores is the state of the .plyignore decisions of a Store.
type plyIgnores struct {
	mu    sync.Mutex
	roots map[string]*gitIndex
	// watch holds the index stamps a checkpoint's decisions rested on, in
	// an untrusted workspace: when they change, the tracker cannot tell
	// what changed and a full scan decides again. nil when no decision
	// needed the index.
	watch []string
}

// plyCounts are what one walk's .plyignore decisions left out or kept.
type plyCounts struct {
	excluded  atomic.Int64 // entries left out, a directory once
	tracked   atomic.Int64 // files git tracks among them (trusted)
	overruled atomic.Int64 // entries git tracks, kept against an untrusted .plyignore
	consulted atomic.Bool  // a decision rested on the index (untrusted)
}

// keepPlyIgnored returns the walk's answer, for root, to an entry a
// .plyignore excludes. The index is looked at once per walk, when the
// first such entry is met.
func (s *Store) keepPlyIgnored(root string, c *plyCounts) func(rel string, isDir bool) bool {
	var once sync.Once
	var set *trackedSet
	var err error
	return func(rel string, isDir bool) bool {
		once.Do(func() { set, err = s.plyIgnore.index(root) })
		if s.opts.TrustPlyIgnore {
			c.excluded.Add(1)
			c.tracked.Add(int64(set.count(rel, isDir)))
			return false
		}
		c.consulted.Store(true)
		if err != nil || set.tracked(rel, isDir) {
			// An index that cannot be read leaves nothing to go by: the
			// untrusted file is not honoured.
			c.overruled.Add(1)
			return true
		}
		c.excluded.Add(1)
		return false
	}
}

// index returns the paths root's index tracks (nil outside a repository),
// reading it again when its stat changed.
func (p *plyIgnores) index(root string) (*trackedSet, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.roots == nil {
		p.roots = map[string]*gitIndex{}
	}
	g := p.roots[root]
	if g == nil {
		g = &gitIndex{}
		p.roots[root] = g
	}
	if !g.looked {
		g.looked = true
		if dir, prefix, ok := gitDirOf(root); ok {
			g.file, g.prefix = filepath.Join(dir, "index"), prefix
		} else {
			g.file = ""
		}
	}
	if g.file == "" {
		g.set, g.err, g.stamp = nil, nil, ""
		return nil, nil
	}
	stamp := indexStamp(g.file)
	if stamp == g.stamp && (g.set != nil || g.err != nil) {
		return g.set, g.err
	}
	g.stamp = stamp
	g.set, g.err = readTracked(g.file, g.prefix)
	if os.IsNotExist(g.err) {
		g.set, g.err = nil, nil // a new repository: nothing tracked yet
	}
	return g.set, g.err
}

// rescan forgets where the indexes are, for a full scan to look again.
func (p *plyIgnores) rescan() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.roots {
		g.looked = false
	}
	p.watch = nil
}

// noteWalk records, after a walk whose decisions rested on the index,
// the stamps to watch.
func (p *plyIgnores) noteWalk(roots []string, c *plyCounts) {
	if !c.consulted.Load() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watch == nil {
		p.watch = p.stampsLocked(roots)
	}
}

// changed reports whether an index the decisions rested on changed.
func (p *plyIgnores) changed(roots []string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watch == nil {
		return false
	}
	now := make([]string, len(roots))
	for i, r := range roots {
		if g := p.roots[r]; g != nil && g.file != "" {
			now[i] = indexStamp(g.file)
		}
	}
	return !slices.Equal(now, p.watch)
}

func (p *plyIgnores) stampsLocked(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		if g := p.roots[r]; g != nil {
			out[i] = g.stamp
		}
	}
	return out
}

// indexStamp describes the index file's stat; "" when absent.
func indexStamp(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	e := entryFromStat(0, "", fi)
	return fmt.Sprint(e.Size, e.Mtime, e.Ctime, e.Ino)
}

// count returns how many tracked files rel is, or holds (isDir).
func (t *trackedSet) count(rel string, isDir bool) int {
	if t == nil {
		return 0
	}
	if !isDir {
		if t.tracked(rel, false) {
			return 1
		}
		return 0
	}
	lo, _ := slices.BinarySearch(t.paths, rel+"/")
	hi := lo
	for hi < len(t.paths) && strings.HasPrefix(t.paths[hi], rel+"/") {
		hi++
	}
	if hi == lo && t.tracked(rel, true) {
		return 1 // beneath a sparse directory
	}
	return hi - lo
}

// IgnoreWarning says, when the ignore rules left out most of the
// workspace or files git tracks, that a rewind cannot bring those back;
// "" otherwise. Only a full scan counts what was left out (the first
// checkpoint of a Store, and the first after the rules changed).
//
// "Most" is measured without walking what was left out: an excluded
// directory counts once, so more entries left out than files recorded
// means at least half of the tree. A node_modules or build directory is
// one entry and never reaches that.
func (r Result) IgnoreWarning() string {
	switch {
	case r.PlyIgnoredTracked > 0:
		return fmt.Sprintf(".plyignore files leave %d files git tracks out of checkpoints: a rewind cannot restore them", r.PlyIgnoredTracked)
	case r.PlyIgnored > 0 && r.PlyIgnored > r.Files:
		return fmt.Sprintf(".plyignore files leave most of the workspace out of checkpoints (%d entries left out, %d files recorded): a rewind cannot restore what they exclude", r.PlyIgnored, r.Files)
	}
	return ""
}
