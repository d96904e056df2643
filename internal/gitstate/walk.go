package gitstate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/plyhq/ply/internal/ignore"
	"github.com/plyhq/ply/internal/safefile"
)

// maxWalk caps the directory entries the untracked walk looks at.
const maxWalk = 50000

// walker finds untracked files as git status --untracked-files=normal
// does: an untracked directory is one line, shown when it holds an
// untracked file that is not ignored, or a repository of its own.
type walker struct {
	ctx     context.Context
	root    string
	work    *dir
	tracked map[string]bool // tracked files
	dirs    map[string]bool // directories holding tracked files
	seen    int
	out     []string
}

// untracked lists the untracked paths, directories with a trailing
// slash, sorted.
func (r *repository) untracked(ctx context.Context, cfg *settings, idx *index) ([]string, error) {
	w := &walker{ctx: ctx, root: r.root, work: r.work, tracked: make(map[string]bool, len(idx.Entries)), dirs: map[string]bool{"": true}}
	for _, e := range idx.Entries {
		w.tracked[e.Path] = true
		for p := e.Path; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if w.dirs[p] {
				break
			}
			w.dirs[p] = true
		}
	}
	var stack *ignore.Stack
	if cfg.excludesFile != "" {
		m, err := readIgnore(cfg.excludesFile, "")
		if err != nil {
			return nil, err
		}
		stack = stack.Push(m)
	}
	m, err := readIgnore(filepath.Join(r.common, "info", "exclude"), "")
	if err != nil {
		return nil, err
	}
	stack = stack.Push(m)
	if err := w.walk("", stack); err != nil {
		return nil, err
	}
	sort.Strings(w.out)
	return w.out, nil
}

// readIgnore parses the user's or the repository's own ignore file
// (where git follows a link); nil when there is none.
func readIgnore(path, dir string) (*ignore.Matcher, error) {
	data, err := readUserFile(path, maxIgnore)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ignore.Parse(dir, data), nil
}

// readDir lists dir (relative to the root) and pushes its .gitignore.
func (w *walker) readDir(rel string, stack *ignore.Stack) ([]fs.DirEntry, *ignore.Stack, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, nil, err
	}
	full := filepath.Join(w.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", full, err)
	}
	if w.seen += len(entries); w.seen > maxWalk {
		return nil, nil, unsupported(fmt.Sprintf("more than %d files and directories to look at", maxWalk))
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && !e.IsDir() {
			// git refuses a link here: so does read.
			data, err := w.work.read(join(rel, ".gitignore"), maxIgnore)
			if errors.Is(err, errLink) {
				break // git warns and reads nothing
			}
			if err != nil {
				return nil, nil, err
			}
			stack = stack.Push(ignore.Parse(rel, data))
			break
		}
	}
	return entries, stack, nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// walk visits a directory that holds tracked files.
func (w *walker) walk(rel string, stack *ignore.Stack) error {
	entries, stack, err := w.readDir(rel, stack)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if ignore.AlwaysIgnored(name) {
			continue
		}
		p := join(rel, name)
		if !e.IsDir() {
			if !w.tracked[p] && stack.Match(p, false) != ignore.Ignore {
				w.out = append(w.out, p)
			}
			continue
		}
		// A directory git ignores hides everything under it, tracked
		// or not, from the untracked list; so does a directory where
		// the index has a file.
		if w.tracked[p] || stack.Match(p, true) == ignore.Ignore {
			continue
		}
		if w.dirs[p] {
			if err := w.walk(p, stack); err != nil {
				return err
			}
			continue
		}
		show, err := w.shown(p, stack)
		if err != nil {
			return err
		}
		if show {
			w.out = append(w.out, p+"/")
		}
	}
	return nil
}

// shown reports whether an untracked directory is listed: it is a
// repository, or holds an untracked file that is not ignored at any
// depth.
func (w *walker) shown(rel string, stack *ignore.Stack) (bool, error) {
	repo, err := w.nestedRepo(rel)
	if err != nil || repo {
		return repo, err
	}
	entries, stack, err := w.readDir(rel, stack)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		name := e.Name()
		if ignore.AlwaysIgnored(name) {
			continue
		}
		p := join(rel, name)
		if stack.Match(p, e.IsDir()) == ignore.Ignore {
			continue
		}
		if !e.IsDir() {
			return true, nil
		}
		if show, err := w.shown(p, stack); err != nil || show {
			return show, err
		}
	}
	return false, nil
}

// nestedRepo reports whether the directory rel holds a repository of its
// own, which git lists without looking in.
func (w *walker) nestedRepo(rel string) (bool, error) {
	dot := filepath.Join(w.root, filepath.FromSlash(rel), ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return false, nil
	}
	if !fi.IsDir() {
		return false, unsupported("a .git file in an untracked directory")
	}
	for _, d := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dot, d)); err != nil || !fi.IsDir() {
			return false, unsupported("an incomplete .git directory in " + rel)
		}
	}
	f, err := safefile.Read(filepath.Join(dot, "HEAD"), maxSmall)
	if err != nil {
		return false, unsupported("an unreadable HEAD in " + rel)
	}
	head := strings.TrimSpace(string(f.Data))
	if _, err := parseHex(head); err != nil && !strings.HasPrefix(head, "ref: refs/") {
		return false, unsupported("an invalid HEAD in " + rel)
	}
	return true, nil
}
