package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plyhq/ply/internal/safefile"
)

// dir reads files beneath one directory, whose real path is resolved
// once: no symbolic link is followed on the way to a file, and only
// regular files are read, up to a cap.
type dir struct {
	path string // the real path
	fd   int    // open on path; -1 where openat2 is missing
}

// openDir opens path (following its links, which the repository's
// layout chose) as the anchor of later reads.
func openDir(path string) (*dir, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	d := &dir{path: real}
	d.fd = openDirFD(real)
	return d, nil
}

func (d *dir) close() {
	if d != nil && d.fd >= 0 {
		closeFD(d.fd)
	}
}

var (
	// errTooLarge is a file past the cap its reader gave.
	errTooLarge = errors.New("larger than the cap")
	// errLink is a file reached through a symbolic link.
	errLink = errors.New("reached through a symbolic link")
)

// read returns the content of rel, a slash-separated path beneath d, of
// at most max bytes. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist); a file past max is errTooLarge.
func (d *dir) read(rel string, max int64) ([]byte, error) {
	f, err := d.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, regular, err := f.info()
	if err != nil {
		return nil, err
	}
	if !regular {
		return nil, unsupported(rel + " is not a regular file")
	}
	data, err := readAllCapped(f, int(min(size, max))+1, int(max)+1)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w", rel, errTooLarge)
	}
	return data, nil
}

// readUserFile reads a file of the user's or the system's (a global
// configuration or ignore file, which may be a link to anywhere) through
// safefile, up to max bytes; a missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist), found with one stat.
func readUserFile(path string, max int64) ([]byte, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	f, err := safefile.Read(path, max)
	if err != nil {
		return nil, err
	}
	if f.Truncated {
		return nil, fmt.Errorf("%s: %w", path, errTooLarge)
	}
	return f.Data, nil
}

// fileReader is an open file: *os.File, or a file read whole.
type fileReader interface {
	io.ReadCloser
	io.ReaderAt
	// info returns the file's size and whether it is a regular file.
	info() (size int64, regular bool, err error)
}

// readWithinFile opens rel through safefile, which reads it whole.
func (d *dir) readWithinFile(rel string) (fileReader, error) {
	full := filepath.Join(d.path, filepath.FromSlash(rel))
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	f, err := safefile.ReadWithin(full, maxWhole, "the repository", d.path)
	if err != nil {
		return nil, err
	}
	if f.Truncated {
		return nil, fmt.Errorf("%s: %w", rel, errTooLarge)
	}
	return &wholeFile{Reader: bytes.NewReader(f.Data), fi: fi}, nil
}

// maxWhole caps a file read whole where openat2 is missing.
const maxWhole = 256 << 20

type wholeFile struct {
	*bytes.Reader
	fi os.FileInfo
}

func (w *wholeFile) Close() error { return nil }
func (w *wholeFile) info() (int64, bool, error) {
	return int64(w.Len()), w.fi.Mode().IsRegular(), nil
}
