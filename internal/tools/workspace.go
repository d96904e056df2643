package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrOutsideWorkspace is returned for a path that resolves outside every
// workspace root.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// Workspace is the set of directory roots the file tools may touch. The
// first root is where relative paths resolve.
type Workspace struct {
	primary string // roots[0], which never changes

	mu       sync.RWMutex
	roots    []string  // absolute, symlinks resolved, cleaned; AddRoot appends
	readOnly []string  // extra roots the read tools may read; same form as roots
	files    TextFiles // an editor's files, or nil for the disk (textfiles.go)
}

// NewWorkspace returns a workspace over roots; the first is the primary.
func NewWorkspace(roots ...string) (*Workspace, error) {
	if len(roots) == 0 {
		return nil, errors.New("workspace: no root given")
	}
	w := &Workspace{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("workspace root %q: %w", r, err)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		w.roots = append(w.roots, filepath.Clean(abs))
	}
	w.primary = w.roots[0]
	return w, nil
}

// Root returns the primary root.
func (w *Workspace) Root() string { return w.primary }

// Roots returns all roots, the primary first. The slice is the caller's.
func (w *Workspace) Roots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return append([]string(nil), w.roots...)
}

// AddRoot adds the existing directory dir (absolute, or relative to the
// primary root) as a root the file tools may read and write, for the
// rest of the session, and returns it as added: absolute, symlinks
// resolved. A directory already inside a root is refused, as is one
// that holds a root (the roots would overlap).
func (w *Workspace) AddRoot(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no directory given")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(w.primary, dir)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(dir))
	if err != nil {
		return "", fmt.Errorf("adding %s to the workspace: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("adding %s to the workspace: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("adding %s to the workspace: not a directory", dir)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.roots {
		if within(r, real) {
			return "", fmt.Errorf("%s is already in the workspace (under %s)", dir, r)
		}
		if within(real, r) {
			return "", fmt.Errorf("%s holds the workspace root %s: add a directory beside it, not above it", dir, r)
		}
	}
	w.roots = append(w.roots, real)
	return real, nil
}

// AddReadOnly adds dir as a root that read and search tools accept and no
// write tool does (a session's saved outputs). It is not among Roots.
func (w *Workspace) AddReadOnly(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("read-only root %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.readOnly = append(w.readOnly, filepath.Clean(abs))
	return nil
}

// ReadOnlyRoots returns the roots added with AddReadOnly.
func (w *Workspace) ReadOnlyRoots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return append([]string(nil), w.readOnly...)
}

// ResolveRead is Resolve for a path that will only be read: it also
// accepts the read-only roots.
func (w *Workspace) ResolveRead(p string) (string, error) {
	return w.resolve(p, true)
}

// Resolve turns p (absolute, or relative to the primary root) into an
// absolute path and refuses it when it, or the nearest existing ancestor
// after following symlinks, lies outside every root. The returned path is
// the cleaned lexical path (not the symlink target), so messages show what
// the model asked for.
func (w *Workspace) Resolve(p string) (string, error) {
	return w.resolve(p, false)
}

func (w *Workspace) resolve(p string, read bool) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.primary, p)
	}
	p = filepath.Clean(p)
	real, err := realPath(p)
	if err != nil {
		return "", err
	}
	roots := w.Roots()
	for _, r := range roots {
		if within(r, real) {
			return p, nil
		}
	}
	if read {
		for _, r := range w.ReadOnlyRoots() {
			if within(r, real) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s (workspace: %s)", ErrOutsideWorkspace, p, strings.Join(roots, ", "))
}

// maxSymlinkHops bounds how many dangling symlinks realPath follows by hand,
// so that a cycle of links cannot loop forever.
const maxSymlinkHops = 40

// realPath follows symlinks of the longest existing prefix of p and appends
// the part that does not exist yet.
func realPath(p string) (string, error) { return realPathHops(p, 0) }

func realPathHops(p string, hops int) (string, error) {
	rest := ""
	cur := p
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		// A dangling symlink does not resolve, yet writing through it
		// creates its target: judge the path by where the link points,
		// or a link to a missing file outside the workspace would pass.
		if target, err := os.Readlink(cur); err == nil {
			if hops >= maxSymlinkHops {
				return "", fmt.Errorf("resolve %s: too many levels of symbolic links", p)
			}
			if !filepath.IsAbs(target) {
				// The link exists, so its directory does too; resolve
				// it so that ".." in the target is taken from the
				// real directory, as the kernel does.
				dir, err := filepath.EvalSymlinks(filepath.Dir(cur))
				if err != nil {
					return "", fmt.Errorf("resolve %s: %w", p, err)
				}
				target = filepath.Join(dir, target)
			}
			return realPathHops(filepath.Join(target, rest), hops+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
