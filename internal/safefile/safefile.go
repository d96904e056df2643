// Package safefile reads small text files that ply puts into a prompt
// (instruction files, a prompt's @path references) without trusting the
// folder they come from.
//
// A name in an untrusted folder may be a symbolic link to anywhere (the
// process's environment in /proc, a key in the home directory), a named
// pipe that blocks the reader forever, a device that never ends, or a
// file of gigabytes. So a file is read only when its real path lies inside
// one of the given roots; it is opened without following a link and
// without blocking, must be a regular file that is no kernel pseudo-file,
// and is read through a limited reader, never whole.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is what Read returned.
type File struct {
	// Real is the path read, symbolic links resolved.
	Real string
	// Data holds at most the cap given to Read.
	Data []byte
	// Size is the file's size when it was opened.
	Size int64
	// Truncated says the file holds more than Data.
	Truncated bool
}

// SkipError says why a file that exists was not read. Callers that
// silently pass over missing files report these.
type SkipError struct {
	Path   string
	Reason string
}

func (e *SkipError) Error() string { return e.Path + ": skipped: " + e.Reason }

// ReadWithin reads at most max bytes of path, whose real path must be a
// regular file inside one of roots; where names the roots in messages
// ("the project"). A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist); a file refused is a *SkipError.
func ReadWithin(path string, max int64, where string, roots ...string) (*File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", path, err)
	}
	if !insideAny(real, roots) {
		return nil, &SkipError{Path: path, Reason: outsideReason(path, real, where)}
	}
	return open(path, real, max)
}

// Read reads at most max bytes of path wherever its real path is, as long
// as that is a regular file: for files whose place is not the project's
// to choose (a repository's HEAD, found through a gitdir file).
func Read(path string, max int64) (*File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", path, err)
	}
	return open(path, real, max)
}

// open opens real, which has no symbolic link left, without following
// one and without blocking, and reads at most max bytes of it.
func open(path, real string, max int64) (*File, error) {
	f, err := openNoFollow(real)
	if err != nil {
		var skip *SkipError
		if errors.As(err, &skip) {
			skip.Path = path
			return nil, skip
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	size, err := checkRegular(f)
	if err != nil {
		return nil, &SkipError{Path: path, Reason: err.Error()}
	}
	if max < 0 {
		max = 0
	}
	buf := make([]byte, 0, min(size, max)+1)
	data, err := readAll(io.LimitReader(f, max+1), buf)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	out := &File{Real: real, Size: size, Data: data}
	if int64(len(data)) > max {
		out.Data, out.Truncated = data[:max], true
	}
	return out, nil
}

// readAll is io.ReadAll into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func outsideReason(path, real, where string) string {
	if target, err := os.Readlink(path); err == nil {
		return fmt.Sprintf("a symbolic link to %s, outside %s", target, where)
	}
	return fmt.Sprintf("its real path %s is outside %s", real, where)
}

// insideAny reports whether real lies in one of roots, each compared by
// its own real path.
func insideAny(real string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if within(filepath.Clean(r), real) {
			return true
		}
	}
	return false
}

func within(root, p string) bool {
	if p == root || root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
