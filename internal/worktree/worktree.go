// Package worktree creates, lists and removes the git worktrees ply runs
// sessions and subagents in, so that several agents can work on one
// repository at once without touching each other's files.
//
// A worktree named NAME lives at <repository>/.ply/worktrees/NAME on a new
// branch ply/NAME made from the commit checked out in the work tree it
// was asked for from (uncommitted changes stay there); <repository> is the
// main work tree, whichever of the repository's work trees that was. The directory is kept out of git status by a
// line in the repository's own info/exclude, never by editing the user's
// .gitignore.
//
// Every git command runs with the environment of package safegit: hooks,
// filters, fsmonitor and the other settings through which a repository's
// configuration could run a program are off. The package runs git and
// reads and writes nothing else of the repository; it knows nothing of
// sessions, the UI or the model.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/safegit"
)

// Dir is where a repository's ply worktrees live, relative to its main
// work tree.
const Dir = ".ply/worktrees"

// BranchPrefix starts the name of every branch Create makes.
const BranchPrefix = "ply/"

// excludeLine is the line Create adds to the repository's info/exclude.
const excludeLine = "/" + Dir + "/"

// ErrNotRepo is returned when the directory is in no git repository.
var ErrNotRepo = errors.New("not in a git repository: worktrees need one (run git init, or start ply inside a repository)")

// ErrNotFound is returned by Find and Remove for a name no ply worktree has.
var ErrNotFound = errors.New("no such worktree")

// DirtyError is Remove's refusal of a worktree with uncommitted changes.
type DirtyError struct {
	Name    string
	Changes int // entries of git status
}

func (e *DirtyError) Error() string {
	return fmt.Sprintf("worktree %s has %d uncommitted change(s): commit them, or remove it with --force to discard them", e.Name, e.Changes)
}

// Worktree is one ply worktree.
type Worktree struct {
	Name   string
	Path   string // absolute
	Branch string // short name, such as ply/NAME; "" when detached
	Head   string // commit
}

// Repo is a git repository as seen from one of its work trees.
type Repo struct {
	// Root is the main work tree; Common is the repository's common git
	// directory.
	Root, Common string
	// dir is the directory Open was given, whose HEAD new worktrees
	// start from.
	dir string
	env []string
}

// Open finds the repository holding dir. It fails with ErrNotRepo when
// there is none, and refuses a bare repository.
func Open(ctx context.Context, dir string) (*Repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("worktrees need git, which is not on PATH: %w", err)
	}
	env := safegit.Env(ctx, dir, baseEnv())
	out, err := run(ctx, dir, env, "rev-parse", "--path-format=absolute", "--git-common-dir", "--is-bare-repository", "--show-toplevel")
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			return nil, ErrNotRepo
		}
		return nil, fmt.Errorf("finding the git repository of %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 || lines[1] == "true" {
		return nil, errors.New("the repository is bare: worktrees need a work tree")
	}
	if len(lines) < 3 {
		return nil, fmt.Errorf("%s is inside a git directory, not a work tree", dir)
	}
	common := filepath.Clean(lines[0])
	root := filepath.Dir(common)
	if filepath.Base(common) != ".git" {
		// A repository whose git directory is elsewhere (--separate-git-dir):
		// the main work tree is the one ply runs in.
		root = filepath.Clean(lines[2])
	}
	return &Repo{Root: root, Common: common, dir: dir, env: env}, nil
}

// baseEnv is ply's environment without the variables that would point git
// at another repository than the directory's.
func baseEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, e)
	}
	return env
}

// run runs git with args in dir and returns its standard output; the
// error holds its standard error.
func run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(env[:len(env):len(env)], "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return stdout.String(), nil
}

// git runs git in dir, one of the repository's work trees, with the
// overrides of that work tree's own configuration and .gitmodules.
func (r *Repo) git(ctx context.Context, dir string, args ...string) (string, error) {
	env := r.env
	if dir != r.dir {
		env = safegit.Env(ctx, dir, baseEnv())
	}
	return run(ctx, dir, env, args...)
}

// ValidName reports why name cannot name a worktree, or nil. A name is
// also part of a branch and a directory name: letters, digits, '.', '_'
// and '-', starting with a letter or digit, at most 64 characters, not
// ending with ".lock" or '.', without "..".
func ValidName(name string) error {
	if name == "" {
		return errors.New("a worktree name cannot be empty")
	}
	if len(name) > 64 {
		return fmt.Errorf("worktree name %q is longer than 64 characters", name)
	}
	for i, c := range []byte(name) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			i > 0 && (c == '-' || c == '_' || c == '.')
		if !ok {
			return fmt.Errorf("worktree name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
		}
	}
	if strings.Contains(name, "..") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") {
		return fmt.Errorf("worktree name %q: no \"..\", and no '.' or \".lock\" at its end", name)
	}
	return nil
}

// Path is where the worktree name lives.
func (r *Repo) Path(name string) string {
	return filepath.Join(r.Root, filepath.FromSlash(Dir), name)
}

// Create makes the worktree name on a new branch ply/NAME from the commit
// checked out in the directory Open was given, or returns the existing one of that
// name. The second result says whether it was made now.
func (r *Repo) Create(ctx context.Context, name string) (Worktree, bool, error) {
	if err := ValidName(name); err != nil {
		return Worktree{}, false, err
	}
	unlock, err := r.lock()
	if err != nil {
		return Worktree{}, false, err
	}
	defer unlock()
	if wt, err := r.find(ctx, name); err == nil {
		return wt, false, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Worktree{}, false, err
	}
	path := r.Path(name)
	if _, err := os.Lstat(path); err == nil {
		return Worktree{}, false, fmt.Errorf("%s exists but is not a worktree of this repository: move it away first", path)
	}
	if err := r.makeDirs(); err != nil {
		return Worktree{}, false, err
	}
	if err := r.exclude(); err != nil {
		return Worktree{}, false, err
	}
	branch := BranchPrefix + name
	args := []string{"worktree", "add", "--quiet"}
	if _, err := r.git(ctx, r.Root, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		// The branch outlived an earlier worktree of that name: its work
		// goes on there.
		args = append(args, path, branch)
	} else {
		head, err := r.git(ctx, r.dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
		if err != nil {
			return Worktree{}, false, errors.New("the repository has no commit yet: a worktree starts from one (commit first)")
		}
		args = append(args, "-b", branch, path, strings.TrimSpace(head))
	}
	if _, err := r.git(ctx, r.Root, args...); err != nil {
		return Worktree{}, false, fmt.Errorf("creating worktree %s: %w", name, err)
	}
	wt, err := r.find(ctx, name)
	return wt, err == nil, err
}

// lock serialises the commands that change or list the repository's
// worktrees across ply processes: git lists a worktree being added by
// another process half made, and fails. The lock is a file in the common
// git directory, beside git's own.
func (r *Repo) lock() (func(), error) {
	return lockFile(filepath.Join(r.Common, "ply-worktrees.lock"))
}

// makeDirs makes .ply and .ply/worktrees in the main work tree, refusing
// either when it is a symbolic link or not a directory: a repository that
// commits one as a link would have the worktree written where it points.
func (r *Repo) makeDirs() error {
	dir := r.Root
	for _, part := range strings.Split(Dir, "/") {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("creating %s: %w", dir, err)
			}
			if fi, err = os.Lstat(dir); err != nil {
				return fmt.Errorf("creating %s: %w", dir, err)
			}
		case err != nil:
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
			return fmt.Errorf("%s is a symbolic link or not a directory: refusing to make worktrees through it", dir)
		}
	}
	return nil
}

// exclude adds the worktrees' directory to the repository's info/exclude
// unless a line there names it already.
func (r *Repo) exclude() error {
	file := filepath.Join(r.Common, "info", "exclude")
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == excludeLine {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(file), err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("opening %s: %w", file, err)
	}
	add := excludeLine + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = "\n" + add
	}
	_, err = f.WriteString("# ply's worktrees\n" + add)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

// List returns the repository's ply worktrees: those under Dir of the
// main work tree.
func (r *Repo) List(ctx context.Context) ([]Worktree, error) {
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return r.list(ctx)
}

func (r *Repo) list(ctx context.Context) ([]Worktree, error) {
	out, err := r.git(ctx, r.Root, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("listing worktrees: %w", err)
	}
	under := r.Path("")
	var list []Worktree
	for _, e := range ParseList([]byte(out)) {
		rel, err := filepath.Rel(under, filepath.Clean(e.Path))
		if err != nil || rel == "." || strings.ContainsRune(rel, filepath.Separator) || strings.HasPrefix(rel, "..") {
			continue
		}
		e.Name = rel
		list = append(list, e)
	}
	return list, nil
}

// Find returns the ply worktree name.
func (r *Repo) Find(ctx context.Context, name string) (Worktree, error) {
	unlock, err := r.lock()
	if err != nil {
		return Worktree{}, err
	}
	defer unlock()
	return r.find(ctx, name)
}

func (r *Repo) find(ctx context.Context, name string) (Worktree, error) {
	list, err := r.list(ctx)
	if err != nil {
		return Worktree{}, err
	}
	for _, w := range list {
		if w.Name == name {
			return w, nil
		}
	}
	return Worktree{}, fmt.Errorf("%w: %s", ErrNotFound, name)
}

// Changes returns the entries of git status in the worktree at path:
// changed, staged and untracked files, not ignored ones.
func (r *Repo) Changes(ctx context.Context, path string) (int, error) {
	out, err := r.git(ctx, path, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return 0, fmt.Errorf("reading the status of %s: %w", path, err)
	}
	n := 0
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			n++
		}
	}
	return n, nil
}

// Remove removes the worktree name; its branch stays, with every commit
// made on it. A worktree with uncommitted changes is refused with a
// *DirtyError unless force is set, which discards them.
func (r *Repo) Remove(ctx context.Context, name string, force bool) error {
	if err := ValidName(name); err != nil {
		return err
	}
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	wt, err := r.find(ctx, name)
	if err != nil {
		return err
	}
	if !force {
		n, err := r.Changes(ctx, wt.Path)
		if err != nil {
			return err
		}
		if n > 0 {
			return &DirtyError{Name: name, Changes: n}
		}
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force", "--force") // twice: also a locked one
	}
	if _, err := r.git(ctx, r.Root, append(args, wt.Path)...); err != nil {
		return fmt.Errorf("removing worktree %s: %w", name, err)
	}
	return nil
}

// DeleteBranch deletes the branch a removed worktree left, when its tip
// is still the commit base: no commit of the worktree is lost.
func (r *Repo) DeleteBranch(ctx context.Context, branch, base string) error {
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	tip, err := r.git(ctx, r.Root, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if err != nil {
		return fmt.Errorf("reading branch %s: %w", branch, err)
	}
	if strings.TrimSpace(tip) != base {
		return fmt.Errorf("branch %s has commits: kept", branch)
	}
	if _, err := r.git(ctx, r.Root, "branch", "-D", "--", branch); err != nil {
		return fmt.Errorf("deleting branch %s: %w", branch, err)
	}
	return nil
}

// ParseList reads the output of git worktree list --porcelain -z: one
// record per work tree, its attributes NUL-terminated, an empty attribute
// ending the record. Name is left empty; a record without a path is
// skipped.
func ParseList(out []byte) []Worktree {
	var list []Worktree
	var cur *Worktree
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) == 0 {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(string(f), " ")
		switch key {
		case "worktree":
			if val == "" {
				cur = nil // no path: not a work tree
				continue
			}
			list = append(list, Worktree{Path: val})
			cur = &list[len(list)-1]
		case "HEAD":
			if cur != nil {
				cur.Head = val
			}
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(val, "refs/heads/")
			}
		}
	}
	return list
}
