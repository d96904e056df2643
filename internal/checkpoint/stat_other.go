//go:build !unix

package checkpoint

import "io/fs"

// statExtra has nothing to add where there is no stat(2): size, mode and
// modification time decide alone.
func statExtra(fs.FileInfo) (ctime int64, ino uint64) { return 0, 0 }

func nlinkOf(fs.FileInfo) uint64 { return 0 }
