package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/gitindex"
)

// The paths git tracks are read from the repository's index file, not by
// running git: git reads the repository's configuration, and an untrusted
// repository's configuration can run programs (core.fsmonitor). Versions
// 2 to 4 of the format are read; a split index is not (errIndex).

// maxIndexBytes bounds the index read: 250,000 paths of 400 bytes.
const maxIndexBytes = 100 << 20

var errIndex = errors.New("unreadable git index")

// trackedSet is the sorted paths a git index holds, relative to the
// workspace root. A path ending in "/" is a sparse directory: everything
// beneath it is tracked.
type trackedSet struct {
	paths  []string
	sparse bool // some paths are sparse directories
}

// tracked reports whether rel, a file, or (isDir) anything beneath the
// directory rel is tracked.
func (t *trackedSet) tracked(rel string, isDir bool) bool {
	if t == nil {
		return false
	}
	key := rel
	if isDir {
		key += "/"
	}
	i, found := slices.BinarySearch(t.paths, key)
	if found || isDir && i < len(t.paths) && strings.HasPrefix(t.paths[i], key) {
		return true
	}
	// A sparse directory above rel.
	for d := parentDir(rel); t.sparse && d != ""; d = parentDir(d) {
		if _, ok := slices.BinarySearch(t.paths, d+"/"); ok {
			return true
		}
	}
	return false
}

// gitDirOf finds the git directory of the repository holding root, and
// root's path inside its work tree ("" at the top, else ending in "/").
// ok is false outside a repository.
func gitDirOf(root string) (gitDir, prefix string, ok bool) {
	dir := root
	for range 64 {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(p); err == nil {
			switch {
			case fi.IsDir():
				gitDir = p
			case fi.Mode().IsRegular() && fi.Size() < 4096:
				// A worktree or submodule: "gitdir: <path>".
				b, err := os.ReadFile(p)
				line, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
				if err != nil || !found || line == "" {
					return "", "", false
				}
				if !filepath.IsAbs(line) {
					line = filepath.Join(dir, line)
				}
				gitDir = line
			default:
				return "", "", false
			}
			rel, err := filepath.Rel(dir, root)
			if err != nil {
				return "", "", false
			}
			if rel = filepath.ToSlash(rel); rel == "." {
				rel = ""
			} else {
				rel += "/"
			}
			return gitDir, rel, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return "", "", false
}

// readTracked reads the index at path and returns the paths under prefix,
// made relative to it.
func readTracked(path, prefix string) (*trackedSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIndexBytes {
		return nil, fmt.Errorf("%w: %s is not a regular file within %d MB", errIndex, path, maxIndexBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	if err != nil {
		return nil, err
	}
	paths, err := parseIndex(data)
	if err != nil {
		return nil, err
	}
	out := &trackedSet{}
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
			out.paths = append(out.paths, rest)
			out.sparse = out.sparse || strings.HasSuffix(rest, "/")
		}
	}
	slices.Sort(out.paths)
	out.paths = slices.Compact(out.paths)
	return out, nil
}

// parseIndex returns the paths of a git index, in its order. The hash
// length is not in the file (SHA-1 or SHA-256 repositories): the one
// that parses is taken.
func parseIndex(data []byte) ([]string, error) {
	paths, err := parseIndexHash(data, 20)
	if err != nil {
		if p2, err2 := parseIndexHash(data, 32); err2 == nil {
			return p2, nil
		}
	}
	return paths, err
}

func parseIndexHash(data []byte, hashLen int) ([]string, error) {
	idx, err := gitindex.Parse(data, hashLen, math.MaxInt32)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errIndex, err)
	}
	// A split index ("link") holds only part of the paths.
	for _, x := range idx.Extensions {
		if x.Sig == "link" {
			return nil, fmt.Errorf("%w: split index", errIndex)
		}
	}
	paths := make([]string, len(idx.Entries))
	for i, e := range idx.Entries {
		paths[i] = e.Path
	}
	return paths, nil
}
