package gitstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel refused openat2.
var noOpenat2 atomic.Bool

func openDirFD(real string) *os.File {
	if noOpenat2.Load() {
		return nil
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), real)
}

// openFile opens rel beneath d with openat2: no symbolic link, no
// escape through "..", no blocking on a named pipe.
func (d *dir) open(rel string) (fileReader, error) {
	if d.fd == nil {
		return d.readWithinFile(rel)
	}
	fd, err := unix.Openat2(int(d.fd.Fd()), rel, &unix.OpenHow{
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
	return os.NewFile(uintptr(fd), rel), nil
}
