package tools

import (
	"context"
	"io/fs"
	"os"
)

// WorkspaceFile is one entry reported by WalkWorkspace.
type WorkspaceFile struct {
	Path string      // absolute
	Rel  string      // relative to the root walked, slash-separated
	Type fs.FileMode // 0 for a regular file, fs.ModeSymlink for a link

	dirfd int
}

// Lstat returns the file's information without following a link. During
// the callback it stats the file by name in its already open directory,
// which spares the kernel resolving the whole path again.
func (f WorkspaceFile) Lstat() (fs.FileInfo, error) {
	if f.dirfd >= 0 {
		if fi, err := lstatAt(f.dirfd, f.Path); err == nil {
			return fi, nil
		}
	}
	return os.Lstat(f.Path)
}

// WalkWorkspace calls fn for every regular file and symbolic link under
// root that neither .gitignore nor .plyignore files exclude, never
// entering .git and never following links. It is the walk of the search
// tools, made for callers that record a tree (package checkpoint): fn is
// called concurrently from workers goroutines (0 means GOMAXPROCS), worker
// in [0, workers), in no particular order, and returns false to stop.
// Directories that cannot be listed are counted in unreadable.
func WalkWorkspace(ctx context.Context, root string, workers int, fn func(worker int, f WorkspaceFile) bool) (unreadable int, err error) {
	opts := walkOptions{Root: root, Workers: workers, Links: true, PlyIgnore: true, DirFD: true}
	st, err := walkTree(ctx, opts, func(worker int, f walkFile) bool {
		return fn(worker, WorkspaceFile{Path: f.Path, Rel: f.Rel, Type: f.Entry.Type() & fs.ModeSymlink, dirfd: f.DirFD})
	})
	return st.Unreadable, err
}
