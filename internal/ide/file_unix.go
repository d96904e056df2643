//go:build unix

package ide

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// readOwned reads a discovery file that only uid could have written: a
// regular file (not a link to one), owned by uid, writable by no one else.
// The checks are made on the file opened, not on its name, so the file
// cannot be swapped between the check and the read.
func readOwned(path string, uid int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, errors.New("it is a symbolic link")
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("it is not a regular file")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, errors.New("its owner cannot be read")
	}
	if int(st.Uid) != uid {
		return nil, fmt.Errorf("it belongs to another user (uid %d)", st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("other users may write it (mode %v)", fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDiscoveryFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDiscoveryFile {
		return nil, errors.New("it is too large to be a discovery file")
	}
	return data, nil
}
