package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/plyhq/ply/internal/ignore"
)

// walkMaxIgnoreFile bounds the size of a .gitignore the walker reads; a
// larger one is almost certainly not an ignore file written by hand, and
// reading it whole for every walk would cost more than it saves.
const walkMaxIgnoreFile = 4 << 20

// walkFile is one regular file found by walkTree.
type walkFile struct {
	Path  string // absolute
	Rel   string // relative to the walk root, slash-separated
	Entry fs.DirEntry
	DirFD int // the open directory holding the file, with walkOptions.DirFD; else -1
}

// walkOptions configures walkTree.
type walkOptions struct {
	// Root is the absolute directory to walk.
	Root string
	// IgnoreRoot is where .gitignore files start to apply: Root or a
	// directory above it (normally the workspace root), so that searching
	// a subdirectory still honours the .gitignore files above it. Root
	// itself is never treated as ignored: a search the model aimed at an
	// ignored directory on purpose gets its files. Empty means Root.
	IgnoreRoot string
	// MaxDepth limits how deep files are reported: 1 is the files directly
	// in Root. 0 is unlimited.
	MaxDepth int
	// Workers is the number of goroutines reading directories and calling
	// the callback; 0 means GOMAXPROCS.
	Workers int
	// Links reports symbolic links as files (never following them)
	// instead of skipping them.
	Links bool
	// PlyIgnore honours .plyignore files too, after the .gitignore of the
	// same directory so that they win.
	PlyIgnore bool
	// DirFD keeps each directory open while its files are reported and
	// passes its descriptor (walkFile.DirFD), so that the callback can
	// stat a file by name without resolving its whole path again.
	DirFD bool
	// BeforeDir, when set, is called with each directory's path (Root
	// included) before it is listed, so that a caller watching the tree
	// for changes starts watching a directory before it reads it.
	BeforeDir func(dir string)
	// KeepPlyIgnored, when set, is asked about each entry a .plyignore
	// excludes and no .gitignore does (rel relative to IgnoreRoot); true
	// keeps it, and a kept directory is listed with the rules as they are.
	KeepPlyIgnored func(rel string, isDir bool) bool
}

// tagPly labels the matchers of .plyignore files.
const tagPly = 1

// walkStats reports what a walk could not read.
type walkStats struct {
	Unreadable int   // directories that could not be listed
	FirstErr   error // the first such error
}

// walkTree calls fn for every regular file under opts.Root that no
// .gitignore excludes, with the nested-file semantics of package ignore,
// skipping .git, symlinks (they could lead out of the workspace or into a
// cycle) and special files (a FIFO would block a reader forever).
//
// fn is called concurrently from opts.Workers goroutines; worker, in
// [0, Workers), lets the caller keep per-goroutine state without locks.
// The order of calls is unspecified. fn returns false to stop the walk.
// walkTree returns ctx.Err() when the context ends first; directories it
// cannot read are counted in the stats, not fatal.
func walkTree(ctx context.Context, opts walkOptions, fn func(worker int, f walkFile) bool) (walkStats, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.IgnoreRoot == "" {
		opts.IgnoreRoot = opts.Root
	}
	if opts.IgnoreRoot != opts.Root && !strings.HasPrefix(opts.Root, walkDirPrefix(opts.IgnoreRoot)) {
		return walkStats{}, fmt.Errorf("walk: ignore root %s does not contain %s", opts.IgnoreRoot, opts.Root)
	}
	w := &walker{opts: opts, fn: fn, ctx: ctx, ignoreCut: len(walkDirPrefix(opts.IgnoreRoot))}
	w.cond.L = &w.mu
	w.rootCut = len(walkDirPrefix(opts.Root))
	w.queue = append(w.queue, walkDir{path: opts.Root, stack: w.ancestorStack()})
	w.active = 1

	stop := context.AfterFunc(ctx, w.stop)
	defer stop()
	var wg sync.WaitGroup
	for i := 1; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(i)
		}()
	}
	w.run(0)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return w.stats, err
	}
	return w.stats, nil
}

// walkDir is a directory waiting to be read.
type walkDir struct {
	path  string
	depth int // 0 for the root
	stack *ignore.Stack
}

type walker struct {
	opts      walkOptions
	fn        func(int, walkFile) bool
	ctx       context.Context
	ignoreCut int // len of IgnoreRoot plus its separator: path[ignoreCut:] is the ignore-relative path
	rootCut   int

	stopped atomic.Bool

	mu     sync.Mutex
	cond   sync.Cond
	queue  []walkDir // a stack: depth first keeps it short
	active int       // directories queued or being read
	stats  walkStats
}

func (w *walker) stop() {
	w.stopped.Store(true)
	w.mu.Lock()
	w.cond.Broadcast()
	w.mu.Unlock()
}

func (w *walker) run(worker int) {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.active > 0 && !w.stopped.Load() {
			w.cond.Wait()
		}
		if len(w.queue) == 0 || w.stopped.Load() {
			w.mu.Unlock()
			return
		}
		d := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.mu.Unlock()

		subdirs := w.readDir(worker, d)

		w.mu.Lock()
		w.queue = append(w.queue, subdirs...)
		w.active += len(subdirs) - 1
		if len(subdirs) > 0 || w.active == 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// readDir lists d, reports its files and returns the subdirectories to
// visit.
func (w *walker) readDir(worker int, d walkDir) []walkDir {
	// AfterFunc stops the walk too, but from another goroutine and later;
	// looking here keeps a cancelled walk from reading on.
	if w.ctx.Err() != nil {
		w.stop()
		return nil
	}
	if w.opts.BeforeDir != nil {
		w.opts.BeforeDir(d.path)
	}
	f, err := os.Open(d.path)
	if err != nil {
		w.unreadable(err)
		return nil
	}
	// Unsorted on purpose: callers order their own results, and sorting
	// every directory would cost more than the whole match.
	ents, err := f.ReadDir(-1)
	dirfd := -1
	if w.opts.DirFD {
		dirfd = int(f.Fd())
		defer f.Close()
	} else {
		f.Close()
	}
	if err != nil && len(ents) == 0 {
		w.unreadable(err)
		return nil
	}
	stack := d.stack
	stack = w.pushIgnores(stack, d.path, ents)
	prefix := walkDirPrefix(d.path)
	var subdirs []walkDir
	for _, e := range ents {
		if w.stopped.Load() {
			return nil
		}
		typ := e.Type()
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() && (!w.opts.Links || typ&fs.ModeSymlink == 0) {
			continue // symlinks, sockets, devices, FIFOs
		}
		name := e.Name()
		if ignore.AlwaysIgnored(name) {
			continue
		}
		p := prefix + name
		if stack.Ignored(p[w.ignoreCut:], isDir) && !w.keepPlyIgnored(stack, p[w.ignoreCut:], isDir) {
			continue
		}
		if isDir {
			if w.opts.MaxDepth == 0 || d.depth+1 < w.opts.MaxDepth {
				subdirs = append(subdirs, walkDir{path: p, depth: d.depth + 1, stack: stack})
			}
			continue
		}
		if !w.fn(worker, walkFile{Path: p, Rel: p[w.rootCut:], Entry: e, DirFD: dirfd}) {
			w.stop()
			return nil
		}
	}
	return subdirs
}

// keepPlyIgnored reports whether the ignored entry rel is kept by
// walkOptions.KeepPlyIgnored: only when a .plyignore decided and the
// .gitignore files alone would not exclude it.
func (w *walker) keepPlyIgnored(stack *ignore.Stack, rel string, isDir bool) bool {
	if w.opts.KeepPlyIgnored == nil {
		return false
	}
	if _, m := stack.Decide(rel, isDir); m.Tag() != tagPly || stack.MatchExcept(rel, isDir, tagPly) == ignore.Ignore {
		return false
	}
	return w.opts.KeepPlyIgnored(rel, isDir)
}

// pushIgnores returns stack with the ignore files among ents, the entries
// of dir, pushed on it.
func (w *walker) pushIgnores(stack *ignore.Stack, dir string, ents []fs.DirEntry) *ignore.Stack {
	var git, ply bool
	for _, e := range ents {
		switch n := e.Name(); {
		case n == ".gitignore" && e.Type().IsRegular():
			git = true
		case n == ".plyignore" && w.opts.PlyIgnore && e.Type().IsRegular():
			ply = true
		}
	}
	if git {
		stack = stack.Push(w.loadIgnore(dir, ".gitignore"))
	}
	if ply {
		stack = stack.Push(w.loadIgnore(dir, ".plyignore").SetTag(tagPly))
	}
	return stack
}

// loadIgnore parses the ignore file name of dir; an unreadable or oversized
// one is treated as empty, like git, which skips what it cannot read.
func (w *walker) loadIgnore(dir, name string) *ignore.Matcher {
	p := walkDirPrefix(dir) + name
	if fi, err := os.Stat(p); err != nil || fi.Size() > walkMaxIgnoreFile {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	rel := ""
	if len(dir) >= w.ignoreCut {
		rel = dir[w.ignoreCut:]
	}
	return ignore.Parse(rel, data)
}

// ancestorStack loads the ignore files that apply to Root from above it:
// the repository's .git/info/exclude (lowest priority, as in git) and every
// .gitignore from IgnoreRoot down to Root's parent. Root's own .gitignore
// is read when Root is listed.
func (w *walker) ancestorStack() *ignore.Stack {
	var s *ignore.Stack
	ir := w.opts.IgnoreRoot
	if data, err := os.ReadFile(walkDirPrefix(ir) + ".git/info/exclude"); err == nil && len(data) <= walkMaxIgnoreFile {
		s = s.Push(ignore.Parse("", data))
	}
	if w.opts.Root == ir {
		return s
	}
	rel := w.opts.Root[w.ignoreCut:]
	dir := ir
	for {
		s = s.Push(w.loadIgnore(dir, ".gitignore"))
		if w.opts.PlyIgnore {
			s = s.Push(w.loadIgnore(dir, ".plyignore").SetTag(tagPly))
		}
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return s
		}
		dir = walkDirPrefix(dir) + rel[:i]
		rel = rel[i+1:]
	}
}

func (w *walker) unreadable(err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return // removed while walking: nothing was missed
	}
	w.mu.Lock()
	w.stats.Unreadable++
	if w.stats.FirstErr == nil {
		w.stats.FirstErr = err
	}
	w.mu.Unlock()
}

// walkDirPrefix returns dir with exactly one trailing separator, so that
// children of "/" are not spelled "//x".
func walkDirPrefix(dir string) string {
	if strings.HasSuffix(dir, "/") {
		return dir
	}
	return dir + "/"
}

// walkIgnoreRoot returns the workspace root that contains dir, where its
// .gitignore files start to apply, or dir itself when no root contains it
// lexically.
func walkIgnoreRoot(ws *Workspace, dir string) string {
	best := ""
	for _, r := range ws.Roots() {
		if (dir == r || strings.HasPrefix(dir, walkDirPrefix(r))) && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return dir
	}
	return best
}
