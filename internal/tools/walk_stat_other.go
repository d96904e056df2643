//go:build !linux

package tools

import (
	"errors"
	"io/fs"
)

// lstatAt is left to os.Lstat where x/sys's stat_t differs by platform.
func lstatAt(int, string) (fs.FileInfo, error) { return nil, errors.ErrUnsupported }
