package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Writing beneath the workspace.
//
// Resolve checks a path once, by name; a write that then opens the path by
// name again can be raced: a directory swapped for a symbolic link between
// the check and the open sends the file wherever the link points. So the
// file tools write through writeFile, which opens every directory on the
// way from a root down without following a symbolic link (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where Linux has it, otherwise one
// openat with O_NOFOLLOW|O_DIRECTORY per component), creates missing
// directories with mkdirat under the parent's descriptor, and creates the
// temporary file and renames it over the target inside the final
// directory's descriptor. Whatever is swapped meanwhile, the file lands in
// a directory that was beneath a root when it was opened.
//
// A symbolic link met on the way is not followed by the kernel. ply reads
// it and, when its target lies inside a workspace root, starts the walk
// again at the target (so links within the project keep working, a link
// as the last component included: its target is replaced, the link
// stays); a target outside every root, or inside a .git directory, is
// refused with an error naming the link and the workspace.

// maxWriteHops bounds how many symbolic links one write follows.
const maxWriteHops = 40

// linkMet reports a symbolic link found while walking: at is its absolute
// path, target what it holds, rest the part of the path after it.
type linkMet struct {
	at, target, rest string
}

func (l *linkMet) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s", l.at, l.target)
}

// writeFile replaces the file at path, a path Resolve accepted, with data
// so that a reader sees the old file or the new one, never a mix; it
// never writes outside the workspace roots. Missing parent directories are
// created. It reports whether the file existed before.
func (w *Workspace) writeFile(path string, data []byte) (existed bool, err error) {
	root, rel, err := w.locate(path)
	if err != nil {
		return false, err
	}
	for hops := 0; ; hops++ {
		existed, err = writeBeneath(root, rel, data)
		var l *linkMet
		if !errors.As(err, &l) {
			return existed, err
		}
		if hops == maxWriteHops {
			return false, fmt.Errorf("write %s: too many levels of symbolic links", path)
		}
		if root, rel, err = w.follow(l); err != nil {
			return false, err
		}
	}
}

// locate splits path into the root it lies under and the part below it.
// A path that lies under no root by name reached one through a symbolic
// link outside the workspace (a root named through a link): those links,
// which the model cannot have placed, are resolved once here.
func (w *Workspace) locate(path string) (root, rel string, err error) {
	if root, rel, ok := w.split(path); ok {
		return root, rel, nil
	}
	real, err := realPath(path)
	if err != nil {
		return "", "", err
	}
	if root, rel, ok := w.split(real); ok {
		return root, rel, nil
	}
	return "", "", w.outside(path)
}

// split finds the first root holding p by name; rel is "." for the root.
func (w *Workspace) split(p string) (root, rel string, ok bool) {
	for _, r := range w.Roots() {
		if within(r, p) {
			rel, err := filepath.Rel(r, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			return r, rel, true
		}
	}
	return "", "", false
}

// follow decides whether the write may go on at a symbolic link's target.
// The directory holding the link was reached without following links, so
// its path is real and a relative target is joined to it by name.
func (w *Workspace) follow(l *linkMet) (root, rel string, err error) {
	target := l.target
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(l.at), target)
	}
	full := filepath.Join(filepath.Clean(target), l.rest)
	root, rel, ok := w.split(full)
	if !ok {
		return "", "", outsideError(fmt.Sprintf("%s is a symbolic link to %s, outside the workspace (%s); refusing to write through it",
			l.at, l.target, strings.Join(w.Roots(), ", ")))
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.EqualFold(part, ".git") {
			return "", "", fmt.Errorf("%s is a symbolic link into a .git directory (%s): files inside .git directories must not be modified",
				l.at, l.target)
		}
	}
	return root, rel, nil
}

func (w *Workspace) outside(p string) error {
	return fmt.Errorf("%w: %s (workspace: %s)", ErrOutsideWorkspace, p, strings.Join(w.Roots(), ", "))
}

// outsideError is an ErrOutsideWorkspace whose message says it all.
type outsideError string

func (e outsideError) Error() string        { return string(e) }
func (e outsideError) Is(target error) bool { return target == ErrOutsideWorkspace }
