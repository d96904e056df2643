package sandbox

import "golang.org/x/sys/unix"

// x86-64 keeps the older path-based calls the generic table dropped.
var archMetadataCalls = []uint32{
	unix.SYS_CHMOD, unix.SYS_CHOWN, unix.SYS_LCHOWN,
	unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT,
}

// I/O port access.
var archSystemCalls = []uint32{unix.SYS_IOPL, unix.SYS_IOPERM}
