//go:build unix

package checkpoint

import (
	"io/fs"
	"syscall"
)

// statExtra returns the change time and inode of fi, which the portable
// FileInfo does not carry.
func statExtra(fi fs.FileInfo) (ctime int64, ino uint64) {
	if x, ok := fi.(interface {
		CtimeNano() int64
		Ino() uint64
	}); ok {
		return x.CtimeNano(), x.Ino()
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return ctimeOf(st), uint64(st.Ino)
}

// nlinkOf returns the number of names of the file fi describes.
func nlinkOf(fi fs.FileInfo) uint64 {
	if x, ok := fi.(interface{ Nlink() uint64 }); ok {
		return x.Nlink()
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
