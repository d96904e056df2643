//go:build !unix

package safefile

import (
	"errors"
	"os"
)

// openNoFollow opens real, a path with its links resolved; there are no
// named pipes to block on here.
func openNoFollow(real string) (*os.File, error) { return os.Open(real) }

func checkRegular(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, errors.New("not a regular file")
	}
	return fi.Size(), nil
}
