package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
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
	return WalkWorkspaceWith(ctx, root, WalkWorkspaceOptions{Workers: workers}, fn)
}

// WalkWorkspaceOptions narrows WalkWorkspaceWith.
type WalkWorkspaceOptions struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Dir is the directory to walk, relative to the root and
	// slash-separated; "" walks the whole root. The .gitignore and
	// .plyignore files between the root and Dir apply; Dir itself is walked
	// even if they exclude it. WorkspaceFile.Rel stays relative to the root.
	Dir string
	// MaxDepth limits how deep files are reported: 1 is the files directly
	// in Dir. 0 is unlimited.
	MaxDepth int
	// BeforeDir, when set, is called with the path of each directory, Dir
	// included, before the directory is listed (from any worker).
	BeforeDir func(dir string)
	// KeepPlyIgnored, when set, is asked (from any worker) about each
	// entry a .plyignore file excludes and no .gitignore does, rel
	// relative to the root: true keeps it (a directory is then listed,
	// its entries judged by the same rules). It lets a caller refuse a
	// .plyignore it does not trust the right to hide some paths.
	KeepPlyIgnored func(rel string, isDir bool) bool
}

// WalkWorkspaceWith is WalkWorkspace over part of the tree.
func WalkWorkspaceWith(ctx context.Context, root string, o WalkWorkspaceOptions, fn func(worker int, f WorkspaceFile) bool) (unreadable int, err error) {
	opts := walkOptions{Root: root, Workers: o.Workers, Links: true, PlyIgnore: true, DirFD: true, MaxDepth: o.MaxDepth, BeforeDir: o.BeforeDir, KeepPlyIgnored: o.KeepPlyIgnored}
	prefix := ""
	if o.Dir != "" {
		opts.IgnoreRoot, opts.Root = root, walkDirPrefix(root)+filepath.FromSlash(o.Dir)
		prefix = o.Dir + "/"
	}
	st, err := walkTree(ctx, opts, func(worker int, f walkFile) bool {
		return fn(worker, WorkspaceFile{Path: f.Path, Rel: prefix + f.Rel, Type: f.Entry.Type() & fs.ModeSymlink, dirfd: f.DirFD})
	})
	return st.Unreadable, err
}
