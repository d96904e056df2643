//go:build unix

package session

import (
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on f without waiting; held reports
// that another open file holds it.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch err {
		case nil:
			return false, nil
		case unix.EWOULDBLOCK:
			return true, nil
		case unix.EINTR:
			continue
		}
		return false, err
	}
}
