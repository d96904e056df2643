package gitstate

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/plyhq/ply/internal/safefile"
)

const (
	// maxHashFile and maxHashTotal cap what is read of the work tree to
	// compare content.
	maxHashFile  = 32 << 20
	maxHashTotal = 128 << 20
	// maxTreeEntries caps the entries of HEAD's trees read.
	maxTreeEntries = 4 * maxEntries
	// maxAttributes and maxIgnore cap attribute and ignore files.
	maxAttributes = 1 << 20
	maxIgnore     = 1 << 20
)

// status computes the lines of git status --short, paths relative to
// cwd.
func (r *repository) status(ctx context.Context, cfg *settings, objs *store, head *oid, idx *index, idxTime fs.FileInfo, cwd string) ([]string, error) {
	if err := r.checkAttributes(cfg, idx); err != nil {
		return nil, err
	}
	changes := map[string]*[2]byte{}
	mark := func(path string, col int, c byte) {
		x := changes[path]
		if x == nil {
			x = &[2]byte{' ', ' '}
			changes[path] = x
		}
		x[col] = c
	}
	// The work tree is looked at while HEAD's tree is read: the
	// untracked walk beside the comparison of tracked files, itself in
	// parts when there are many (git preloads the index likewise).
	var wg sync.WaitGroup
	var untracked []string
	var walkErr error
	wg.Go(func() { untracked, walkErr = r.untracked(ctx, cfg, idx) })
	parts := 1
	if len(idx.Entries) >= 512 {
		parts = min(max(runtime.GOMAXPROCS(0), 1), 4)
	}
	cols := make([]byte, len(idx.Entries))
	errs := make([]error, parts)
	for k := range parts {
		lo, hi := k*len(cols)/parts, (k+1)*len(cols)/parts
		wg.Go(func() {
			w := &worktree{root: r.root, work: r.work, cfg: cfg, idxTime: idxTime, dirs: map[string]bool{}, budget: maxHashTotal / int64(parts)}
			for i := lo; i < hi; i++ {
				if i%256 == 0 && ctx.Err() != nil {
					errs[k] = ctx.Err()
					return
				}
				if cols[i], errs[k] = w.compare(&idx.Entries[i]); errs[k] != nil {
					return
				}
			}
		})
	}
	headErr := headChanges(objs, head, idx, func(p string, c byte) { mark(p, 0, c) })
	wg.Wait()
	if err := errors.Join(append(errs, headErr, walkErr)...); err != nil {
		return nil, err
	}
	for i, c := range cols {
		if c != 0 {
			mark(idx.Entries[i].Path, 1, c)
		}
	}
	prefix := ""
	if rel, err := filepath.Rel(r.root, cwd); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		prefix = filepath.ToSlash(rel) + "/"
	}
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]string, 0, len(paths)+len(untracked))
	for _, p := range paths {
		xy := changes[p]
		out = append(out, string(xy[:])+" "+quotePath(relativePath(p, prefix)))
	}
	for _, p := range untracked {
		out = append(out, "?? "+quotePath(relativePath(p, prefix)))
	}
	return out, nil
}

// readIndex reads the index and its modification time; a missing index
// is an empty one.
func (r *repository) readIndex() (*index, fs.FileInfo, error) {
	fi, err := os.Lstat(filepath.Join(r.git.path, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return &index{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	data, err := r.git.read("index", maxIndex)
	if err != nil {
		return nil, nil, err
	}
	idx, err := parseIndex(data, maxEntries)
	if err != nil {
		return nil, nil, err
	}
	return idx, fi, nil
}

// headChanges reports each path whose index entry differs from HEAD's
// tree: 'A' added, 'D' deleted, 'M' modified, 'T' of another type.
// Directories whose cache tree matches HEAD's are skipped unread.
func headChanges(objs *store, head *oid, idx *index, report func(string, byte)) error {
	if head == nil {
		for _, e := range idx.Entries {
			report(e.Path, 'A')
		}
		return nil
	}
	c, err := objs.readCommit(*head)
	if err != nil {
		return err
	}
	inHead := map[string]treeEntry{}
	same := map[string]bool{} // directories equal in both
	budget := maxTreeEntries
	var walk func(prefix string, id oid, depth int) error
	walk = func(prefix string, id oid, depth int) error {
		if t, ok := idx.Trees[prefix]; ok && t == id {
			same[prefix] = true
			return nil
		}
		if depth > 256 {
			return unsupported("trees nested too deep")
		}
		typ, data, err := objs.read(id)
		if err != nil {
			return err
		}
		if typ != typeTree {
			return fmt.Errorf("%w: %x is not a tree", errObject, id)
		}
		entries, err := parseTree(data)
		if err != nil {
			return err
		}
		if budget -= len(entries); budget < 0 {
			return unsupported("HEAD's tree has too many entries")
		}
		for _, e := range entries {
			p := e.Name
			if prefix != "" {
				p = prefix + "/" + e.Name
			}
			switch e.Mode {
			case modeTree:
				if err := walk(p, e.ID, depth+1); err != nil {
					return err
				}
			case modeGitlink:
				return unsupported("submodules")
			default:
				inHead[p] = e
			}
		}
		return nil
	}
	if err := walk("", c.Tree, 0); err != nil {
		return err
	}
	underSame := func(p string) bool {
		for {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				return same[""]
			}
			p = p[:i]
			if same[p] {
				return true
			}
		}
	}
	for _, e := range idx.Entries {
		h, ok := inHead[e.Path]
		switch {
		case ok:
			delete(inHead, e.Path)
			if h.Mode&0o170000 != e.Mode&0o170000 {
				report(e.Path, 'T')
			} else if h.Mode != e.Mode || h.ID != e.ID {
				report(e.Path, 'M')
			}
		case !underSame(e.Path):
			report(e.Path, 'A')
		}
	}
	for p := range inHead {
		report(p, 'D')
	}
	return nil
}

// worktree compares index entries with the files of the work tree.
type worktree struct {
	root    string
	work    *dir
	cfg     *settings
	idxTime fs.FileInfo
	dirs    map[string]bool // leading directories that are real directories
	budget  int64           // bytes left to hash
}

// compare returns git's second status column for e: 0 unchanged, 'M',
// 'D' or 'T'.
func (w *worktree) compare(e *entry) (byte, error) {
	if !w.realParents(e.Path) {
		return 'D', nil
	}
	full := filepath.Join(w.root, filepath.FromSlash(e.Path))
	fi, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return 'D', nil
	}
	if err != nil {
		return 0, err
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		if _, err := os.Lstat(filepath.Join(full, ".git")); err == nil {
			return 0, unsupported("a repository where a file is tracked")
		}
		return 'D', nil
	case m&fs.ModeSymlink != 0:
		if e.Mode != modeLink {
			return 'T', nil
		}
	case m.IsRegular():
		if e.Mode == modeLink {
			return 'T', nil
		}
		if w.cfg.fileMode && (e.Mode&0o100 != 0) != (m&0o100 != 0) {
			return 'M', nil
		}
	default:
		return 0, unsupported("a tracked path that is neither a file nor a link")
	}
	st, ok := statOf(fi)
	if !ok {
		return 0, unsupported("no stat data")
	}
	if st.size != e.Size && e.Size != 0 {
		return 'M', nil
	}
	if st.size == e.Size && !w.racy(e) &&
		st.mtimeSec == e.MtimeSec && st.mtimeNsec == e.MtimeNsec &&
		st.ctimeSec == e.CtimeSec && st.ctimeNsec == e.CtimeNsec &&
		st.ino == e.Ino && st.uid == e.UID && st.gid == e.GID {
		return 0, nil
	}
	id, err := w.hash(e.Path, full, fi)
	if err != nil {
		return 0, err
	}
	if id != e.ID {
		return 'M', nil
	}
	return 0, nil
}

// statData is the part of a file's stat data the index records.
type statData struct {
	size, mtimeSec, mtimeNsec, ctimeSec, ctimeNsec, ino, uid, gid uint32
}

// racy reports whether e was written no earlier than the index's
// second: its stat data cannot tell a later change of the same size.
func (w *worktree) racy(e *entry) bool {
	return w.idxTime == nil || w.idxTime.ModTime().Unix() <= int64(e.MtimeSec)
}

// realParents reports whether every leading directory of path is a real
// directory, not a link (git takes a path behind a link as deleted).
func (w *worktree) realParents(path string) bool {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return true
	}
	dir := path[:i]
	if ok, seen := w.dirs[dir]; seen {
		return ok
	}
	ok := w.realParents(dir)
	if ok {
		fi, err := os.Lstat(filepath.Join(w.root, filepath.FromSlash(dir)))
		ok = err == nil && fi.IsDir()
	}
	w.dirs[dir] = ok
	return ok
}

// hash is the blob id of the file or link at full.
func (w *worktree) hash(rel, full string, fi fs.FileInfo) (oid, error) {
	var data []byte
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(full)
		if err != nil {
			return oid{}, err
		}
		data = []byte(t)
	} else {
		if fi.Size() > maxHashFile || fi.Size() > w.budget {
			return oid{}, unsupported("changed files too large to compare")
		}
		var err error
		if data, err = w.work.read(rel, maxHashFile); err != nil {
			return oid{}, err
		}
	}
	w.budget -= int64(len(data))
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var id oid
	h.Sum(id[:0])
	return id, nil
}

// checkAttributes refuses a repository whose attributes convert content
// of tracked files: the global attributes file, info/attributes, and the
// .gitattributes of every directory holding tracked files.
func (r *repository) checkAttributes(cfg *settings, idx *index) error {
	files := []string{filepath.Join(r.common, "info", "attributes")}
	if !cfg.noSystemAttributes {
		files = append(files, "/etc/gitattributes")
	}
	if cfg.attributesFile != "" {
		files = append(files, cfg.attributesFile)
	}
	dirs := map[string]bool{"": true}
	for _, e := range idx.Entries {
		for p := e.Path; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if dirs[p] {
				break
			}
			dirs[p] = true
		}
		if e.Path == ".gitattributes" || strings.HasSuffix(e.Path, "/.gitattributes") {
			if _, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(e.Path))); err != nil {
				return unsupported("a tracked .gitattributes missing from the work tree")
			}
		}
	}
	for d := range dirs {
		data, err := r.work.read(join(d, ".gitattributes"), maxAttributes)
		// git refuses a link as .gitattributes; behind a linked
		// directory only deleted files would take its attributes.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errLink) {
			continue
		}
		if err != nil {
			return err
		}
		if attributesChangeContent(data) {
			return unsupported("attributes that convert content: " + join(d, ".gitattributes"))
		}
	}
	for _, name := range files {
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			return unsupported(name + " is not a regular file")
		}
		f, err := safefile.Read(name, maxAttributes)
		if err != nil {
			return err
		}
		if f.Truncated || attributesChangeContent(f.Data) {
			return unsupported("attributes that convert content: " + name)
		}
	}
	return nil
}
