package tools

import (
	"context"
	"io/fs"
)

// WorkspaceFile is one entry reported by WalkWorkspace.
type WorkspaceFile struct {
	Path string      // absolute
	Rel  string      // relative to the root walked, slash-separated
	Type fs.FileMode // 0 for a regular file, fs.ModeSymlink for a link
}

// WalkWorkspace calls fn for every regular file and symbolic link under
// root that neither .gitignore nor .plyignore files exclude, never
// entering .git and never following links. It is the walk of the search
// tools, made for callers that record a tree (package checkpoint): fn is
// called concurrently from workers goroutines (0 means GOMAXPROCS), worker
// in [0, workers), in no particular order, and returns false to stop.
// Directories that cannot be listed are counted in unreadable.
func WalkWorkspace(ctx context.Context, root string, workers int, fn func(worker int, f WorkspaceFile) bool) (unreadable int, err error) {
	opts := walkOptions{Root: root, Workers: workers, Links: true, PlyIgnore: true}
	st, err := walkTree(ctx, opts, func(worker int, f walkFile) bool {
		return fn(worker, WorkspaceFile{Path: f.Path, Rel: f.Rel, Type: f.Entry.Type() & fs.ModeSymlink})
	})
	return st.Unreadable, err
}
