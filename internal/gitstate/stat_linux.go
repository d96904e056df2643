package gitstate

import (
	"io/fs"
	"syscall"
)

// deviceOf is the device of the file system p is on.
func deviceOf(p string) (uint64, bool) {
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}

// ownerOf is the user owning the file fi describes.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// statOf is fi's stat data as the index records it.
func statOf(fi fs.FileInfo) (statData, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statData{}, false
	}
	return statData{
		size:     uint32(st.Size),
		mtimeSec: uint32(st.Mtim.Sec), mtimeNsec: uint32(st.Mtim.Nsec),
		ctimeSec: uint32(st.Ctim.Sec), ctimeNsec: uint32(st.Ctim.Nsec),
		ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid,
	}, true
}
