package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no index header", errIndex)
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndex, version)
	}
	n := binary.BigEndian.Uint32(data[8:])
	end := len(data) - hashLen // the trailing checksum
	if uint64(n) > uint64(end)/40 {
		return nil, fmt.Errorf("%w: %d entries cannot fit", errIndex, n)
	}
	paths := make([]string, 0, n)
	off, prev := 12, ""
	fixed := 40 + hashLen + 2 // times, ids, mode, sizes; the hash; flags
	for range n {
		if off+fixed > end {
			return nil, fmt.Errorf("%w: entry past the end", errIndex)
		}
		start := off
		flags := binary.BigEndian.Uint16(data[off+fixed-2:])
		off += fixed
		if flags&0x4000 != 0 { // extended flags
			if version < 3 || off+2 > end {
				return nil, fmt.Errorf("%w: bad extended flags", errIndex)
			}
			off += 2
		}
		var name string
		if version == 4 {
			strip, used := indexVarint(data[off:end])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("%w: bad path prefix", errIndex)
			}
			off += used
			i := bytes.IndexByte(data[off:end], 0)
			if i < 0 {
				return nil, fmt.Errorf("%w: unterminated path", errIndex)
			}
			name = prev[:len(prev)-int(strip)] + string(data[off:off+i])
			off += i + 1
		} else {
			i := bytes.IndexByte(data[off:end], 0)
			if i < 0 {
				return nil, fmt.Errorf("%w: unterminated path", errIndex)
			}
			name = string(data[off : off+i])
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			off = start + (off-start+i+8)&^7
			if off > end {
				return nil, fmt.Errorf("%w: entry past the end", errIndex)
			}
		}
		if name == "" {
			return nil, fmt.Errorf("%w: empty path", errIndex)
		}
		paths = append(paths, name)
		prev = name
	}
	// Extensions: a split index ("link") holds only part of the paths.
	for off+8 <= end {
		sig, size := string(data[off:off+4]), binary.BigEndian.Uint32(data[off+4:])
		if sig == "link" {
			return nil, fmt.Errorf("%w: split index", errIndex)
		}
		if uint64(size) > uint64(end-off-8) {
			return nil, fmt.Errorf("%w: extension past the end", errIndex)
		}
		off += 8 + int(size)
	}
	if off != end {
		return nil, fmt.Errorf("%w: trailing bytes", errIndex)
	}
	return paths, nil
}

// indexVarint decodes the offset encoding of index version 4; used is 0
// when b holds no complete number.
func indexVarint(b []byte) (v uint64, used int) {
	for i := 0; i < len(b) && i < 9; i++ {
		c := b[i]
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
