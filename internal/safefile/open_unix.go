//go:build unix

package safefile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow opens real for reading. O_NONBLOCK keeps a named pipe
// swapped in after the check from blocking the open; the caller refuses
// anything but a regular file before the first read.
func openNoFollow(real string) (*os.File, error) {
	fd, err := openResolved(real)
	if errors.Is(err, unix.ELOOP) {
		return nil, &SkipError{Reason: "a symbolic link appeared on its path while it was being opened"}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	return os.NewFile(uintptr(fd), real), nil
}

// checkRegular returns f's size, or why f may not be read.
func checkRegular(f *os.File) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0, err
	}
	if kind := fileKind(uint32(st.Mode) & unix.S_IFMT); kind != "" {
		return 0, errors.New("not a regular file but " + kind)
	}
	if pseudoFS(int(f.Fd())) {
		return 0, errors.New("a kernel pseudo-file (/proc, /sys), not a file of the project")
	}
	return st.Size, nil
}

func fileKind(mode uint32) string {
	switch mode {
	case unix.S_IFREG:
		return ""
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return "a special file"
}
