package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The socket filter is a seccomp program of its own rather than a
// library's: it is a dozen instructions, golang.org/x/net/bpf (already a
// dependency) assembles them, and a rule compiler would be a new
// dependency for the few lines that choose the jump targets. Landlock
// cannot restrict UDP or pathname Unix sockets before ABI 9 and 10, and
// the kernels ply meets are older, so without network a confined command
// gets no socket at all: socket(2) fails with EACCES, and io_uring, which
// can create and connect sockets past the filter, is reported missing
// (ENOSYS) so that programs fall back to plain system calls. socketpair(2)
// stays, for its stream and packet types only: a pair reaches nothing
// outside, but a datagram pair could send to any socket file by name.

// auditArch is the seccomp architecture of this build, or 0 when the
// filter does not know it.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// errNoSocketFilter is why a command cannot be kept off the network on
// this architecture.
var errNoSocketFilter = errors.New("ply has no socket filter for " + runtime.GOARCH)

// x32Bit marks the x32 system call numbers of an x86-64 kernel, which
// would reach socket(2) by another number.
const x32Bit = 0x40000000

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg1 = 16 + 8 + 0 // low half of args[1] on a little-endian machine
)

// socketFilter returns the program that denies sockets, as described
// above. A system call of another architecture (32-bit compatibility
// calls, x32) kills the process: it could reach socket(2) under a number
// the program does not check.
func socketFilter() ([]bpf.RawInstruction, error) {
	arch := auditArch()
	if arch == 0 {
		return nil, errNoSocketFilter
	}
	raw, err := bpf.Assemble(socketProgram(arch))
	if err != nil {
		return nil, fmt.Errorf("assemble the socket filter: %w", err)
	}
	return raw, nil
}

// socketProgram is the filter's program for the architecture arch.
func socketProgram(arch uint32) []bpf.Instruction {
	const (
		allow = unix.SECCOMP_RET_ALLOW
		kill  = unix.SECCOMP_RET_KILL_PROCESS
	)
	eacces := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	// Jumps skip forward; each comment names the target's index.
	return []bpf.Instruction{
		/* 0 */ bpf.LoadAbsolute{Off: offArch, Size: 4},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipFalse: 12}, // → 14
		/* 2 */ bpf.LoadAbsolute{Off: offNr, Size: 4},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipTrue: 10}, // → 14
		/* 4 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipTrue: 6}, // → 11
		/* 5 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IO_URING_SETUP, SkipTrue: 7}, // → 13
		/* 6 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKETPAIR, SkipFalse: 5}, // → 12
		/* 7 */ bpf.LoadAbsolute{Off: offArg1, Size: 4},
		/* 8 */ bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf}, // SOCK_TYPE_MASK
		/* 9 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 2}, // → 12
		/* 10 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_SEQPACKET, SkipTrue: 1}, // → 12, else 11
		/* 11 */ bpf.RetConstant{Val: eacces},
		/* 12 */ bpf.RetConstant{Val: allow},
		/* 13 */ bpf.RetConstant{Val: enosys},
		/* 14 */ bpf.RetConstant{Val: kill},
	}
}

// installSocketFilter applies the socket filter to the calling thread,
// which must have no_new_privs set; execve keeps it.
func installSocketFilter() error {
	raw, err := socketFilter()
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	// seccomp(2) without SECCOMP_FILTER_FLAG_TSYNC: the filter belongs to
	// this thread, the one that executes the command.
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", errno)
	}
	runtime.KeepAlive(filter)
	return nil
}
