// Package gitstate reads what `git status --short --untracked-files=normal
// --no-renames` and `git log --oneline --no-decorate -5` would print for a
// repository, without running git: the index (versions 2 to 4) against
// the work tree and HEAD's tree, untracked files under the ignore rules,
// and the last commits from loose objects and packs.
//
// It only reads. It never writes under the git directory (not even the
// index git would refresh), runs nothing the repository configures, reads
// every file of the git directory through safefile within that directory,
// and caps every size it reads. Whenever the repository uses something it
// does not fully read (another object format, alternates, submodules,
// sparse checkout, a split index, content conversions, an include in its
// configuration, more than maxEntries index entries, an object it cannot
// decode) Read returns an *UnsupportedError and the caller asks git.
//
// It owns the reading of git's on-disk formats for this purpose only:
// which commands run and how their output is shown belong to its caller
// (internal/sysprompt).
package gitstate

import (
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/safefile"
)

const (
	// maxEntries caps the index entries read: past it git's own
	// status, with its caches, is the better reader.
	maxEntries = 5000
	// maxIndex caps the index file's size.
	maxIndex = 8 << 20
	// maxSmall caps HEAD, a ref and similar one-line files.
	maxSmall = 4 << 10
	// maxPackedRefs caps packed-refs.
	maxPackedRefs = 8 << 20
	// logCount is how many commits Read lists.
	logCount = 5
)

// State is what the snapshot's two git commands would print.
type State struct {
	// Status holds the lines of git status --short, in git's order,
	// paths relative to the directory Read was given.
	Status []string
	// Commits holds the lines of git log --oneline, newest first;
	// empty before the first commit.
	Commits []string
}

// UnsupportedError says the repository uses something Read does not
// read, so that git must be asked.
type UnsupportedError struct{ Reason string }

func (e *UnsupportedError) Error() string { return "not read without git: " + e.Reason }

func unsupported(reason string) error { return &UnsupportedError{Reason: reason} }

// repository is where a repository's parts are.
type repository struct {
	root   string // the work tree
	gitDir string // HEAD and the index
	common string // objects, refs, config, info
	// The same, opened for reading beneath them.
	work, git, com *dir
}

// open opens the repository's directories for reading.
func (r *repository) open() (err error) {
	if r.work, err = openDir(r.root); err != nil {
		return err
	}
	if r.git, err = openDir(r.gitDir); err != nil {
		return err
	}
	r.com, err = openDir(r.common)
	return err
}

func (r *repository) close() {
	r.work.close()
	r.git.close()
	r.com.close()
}

// Read reads the state of the repository holding dir, as git run in dir
// with environment env would show it. Every failure is an
// *UnsupportedError or wraps one's cause: either way git is the answer.
func Read(ctx context.Context, dir string, env []string) (st *State, err error) {
	defer func() {
		var u *UnsupportedError
		if err != nil && !errors.As(err, &u) {
			err = &UnsupportedError{Reason: err.Error()}
		}
	}()
	vars, err := checkEnv(env)
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	r, err := discover(dir)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := r.open(); err != nil {
		return nil, err
	}
	if dir == r.git.path || strings.HasPrefix(dir, r.git.path+string(filepath.Separator)) {
		return nil, unsupported("inside the git directory")
	}
	cfg, err := readSettings(vars, r.com)
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"info/grafts", "shallow", "refs/replace", "info/sparse-checkout"} {
		if _, err := os.Lstat(filepath.Join(r.common, f)); err == nil {
			return nil, unsupported(f + " exists")
		}
	}
	if _, err := os.Lstat(filepath.Join(r.gitDir, "config.worktree")); err == nil {
		return nil, unsupported("a worktree configuration")
	}
	// The index first: past maxEntries nothing else is read.
	idx, idxTime, err := r.readIndex()
	if err != nil {
		return nil, err
	}
	objs, err := openStore(r.com)
	if err != nil {
		return nil, err
	}
	defer objs.close()
	refs, err := readPackedRefs(r.com)
	if err != nil {
		return nil, err
	}
	head, err := r.resolveHead(refs)
	if err != nil {
		return nil, err
	}
	st = &State{}
	if st.Status, err = r.status(ctx, cfg, objs, head, idx, idxTime, dir); err != nil {
		return nil, err
	}
	if head != nil {
		if st.Commits, err = logLines(objs, *head, logCount); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// checkEnv returns the variables Read reads, or why git must be asked:
// a variable that moves the repository, its objects, index or
// configuration, or changes what git shows. Any GIT_ variable whose
// name speaks of one of those declines, known or not.
func checkEnv(env []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME" || k == "XDG_CONFIG_HOME" || k == "GIT_CONFIG_NOSYSTEM" || k == "GIT_ATTR_NOSYSTEM":
			vars[k] = v
		case !strings.HasPrefix(k, "GIT_"):
		default:
			for _, word := range envWords {
				if strings.Contains(k, word) {
					return nil, unsupported("the environment sets " + k)
				}
			}
		}
	}
	return vars, nil
}

// envWords are the parts of names of git's variables that change where
// or what it reads, or how it shows it.
var envWords = []string{"DIR", "WORK_TREE", "INDEX", "OBJECT", "CONFIG", "NAMESPACE", "CEILING", "DISCOVERY",
	"REPLACE", "GRAFT", "SHALLOW", "NOTES", "ATTR", "TEST", "QUOTE", "CASE", "PATHSPEC", "HASH", "ABBREV", "REF"}

// discover finds the repository dir is in as git does: the nearest
// ancestor with a .git directory, or a .git file naming one, on the same
// file system (git stops at a mount point).
func discover(dir string) (*repository, error) {
	dev := func(p string) uint64 {
		d, _ := deviceOf(p)
		return d
	}
	first := dev(dir)
	for d := dir; ; {
		if dev(d) != first {
			return nil, unsupported("the repository is on another file system")
		}
		dot := filepath.Join(d, ".git")
		fi, err := os.Lstat(dot)
		if err == nil {
			r := &repository{root: d}
			switch {
			case fi.IsDir():
				r.gitDir = dot
			case fi.Mode().IsRegular():
				f, err := safefile.Read(dot, maxSmall)
				if err != nil {
					return nil, err
				}
				p, ok := strings.CutPrefix(strings.TrimSpace(string(f.Data)), "gitdir: ")
				if !ok {
					return nil, unsupported(".git is a file without gitdir")
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(d, p)
				}
				r.gitDir = filepath.Clean(p)
			default:
				return nil, unsupported(".git is a symbolic link")
			}
			return r, r.finish()
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, unsupported("not in a repository")
		}
		d = parent
	}
}

// finish finds the common directory and checks the layout and its owner
// as git does before it trusts a repository.
func (r *repository) finish() error {
	r.common = r.gitDir
	f, err := safefile.Read(filepath.Join(r.gitDir, "commondir"), maxSmall)
	switch {
	case err == nil:
		c := strings.TrimSpace(string(f.Data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(r.gitDir, c)
		}
		r.common = filepath.Clean(c)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	for _, d := range []string{filepath.Join(r.common, "objects"), filepath.Join(r.common, "refs")} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return unsupported("not a complete git directory: " + d)
		}
	}
	// git refuses a repository another user owns unless safe.directory
	// says otherwise; git, not this package, reads that setting.
	uid := os.Getuid()
	for _, p := range []string{r.root, r.gitDir, r.common} {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if owner, ok := ownerOf(fi); !ok || owner != uid {
			return unsupported(p + " is owned by another user")
		}
	}
	return nil
}

// resolveHead returns the commit HEAD names, nil on a branch with no
// commit yet.
func (r *repository) resolveHead(packed map[string]oid) (*oid, error) {
	ref := "HEAD"
	for range 5 {
		d := r.com
		if ref == "HEAD" || strings.HasPrefix(ref, "refs/worktree/") || strings.HasPrefix(ref, "refs/bisect/") {
			d = r.git
		}
		data, err := d.read(ref, maxSmall)
		if errors.Is(err, fs.ErrNotExist) {
			if id, ok := packed[ref]; ok {
				return &id, nil
			}
			if ref == "HEAD" {
				return nil, unsupported("no HEAD")
			}
			return nil, nil // an unborn branch
		}
		if err != nil {
			return nil, err
		}
		s := strings.TrimSpace(string(data))
		if next, ok := strings.CutPrefix(s, "ref: "); ok {
			if !strings.HasPrefix(next, "refs/") || strings.Contains(next, "..") || strings.ContainsAny(next, "\\\x00") {
				return nil, unsupported("HEAD names " + next)
			}
			ref = next
			continue
		}
		id, err := parseHex(s)
		if err != nil {
			return nil, unsupported(ref + " holds no object id")
		}
		return &id, nil
	}
	return nil, unsupported("symbolic references nest too deep")
}

func parseHex(s string) (oid, error) {
	var id oid
	if len(s) != 40 {
		return id, errors.New("not a SHA-1 object id")
	}
	_, err := hex.Decode(id[:], []byte(s))
	return id, err
}

// readPackedRefs reads packed-refs: name → id.
func readPackedRefs(common *dir) (map[string]oid, error) {
	data, err := common.read("packed-refs", maxPackedRefs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	refs := map[string]oid{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		h, name, ok := strings.Cut(line, " ")
		id, err := parseHex(h)
		if !ok || err != nil {
			return nil, unsupported("a malformed packed-refs")
		}
		if strings.HasPrefix(name, "refs/replace/") {
			return nil, unsupported("replace references")
		}
		refs[name] = id
	}
	return refs, nil
}
