package gitstate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel refused openat2.
var noOpenat2 atomic.Bool

func openDirFD(real string) int {
	if noOpenat2.Load() {
		return -1
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func closeFD(fd int) { unix.Close(fd) }

// open opens rel beneath d with openat2: no symbolic link, no escape
// through "..", no blocking on a named pipe.
func (d *dir) open(rel string) (fileReader, error) {
	if d.fd < 0 {
		return d.readWithinFile(rel)
	}
	fd, err := unix.Openat2(d.fd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case err == unix.ENOSYS || err == unix.EPERM:
		noOpenat2.Store(true)
		return d.readWithinFile(rel)
	case err == unix.ENOENT || err == unix.ENOTDIR:
		return nil, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrNotExist}
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
		return nil, fmt.Errorf("%s: %w", rel, errLink)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return fdFile(fd), nil
}

// fdFile is a file read through its descriptor alone: cheaper than an
// *os.File, which would try to register a regular file with the
// poller.
type fdFile int

func (f fdFile) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(b) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fdFile) ReadAt(b []byte, off int64) (int, error) {
	done := 0
	for done < len(b) {
		n, err := unix.Pread(int(f), b[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, io.EOF
		}
		done += n
	}
	return done, nil
}

func (f fdFile) Close() error { return unix.Close(int(f)) }

func (f fdFile) info() (int64, bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f), &st); err != nil {
		return 0, false, err
	}
	return st.Size, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}
