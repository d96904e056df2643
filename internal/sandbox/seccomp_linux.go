package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The system call filter is a seccomp program of ply's own rather than a
// library's: golang.org/x/net/bpf (already a dependency) assembles it,
// and a rule compiler would be a new dependency for the few lines that
// lay out the jumps (filterProgram). It is a list of system call numbers
// compared one after the other, then a few checks of arguments; the
// kernel caches the answer for every call whose answer does not depend on
// its arguments, so the length of the list costs nothing per call.
//
// What it denies, and why, is in seccomp_calls_linux.go. Without network,
// Landlock cannot restrict UDP or pathname Unix sockets before ABI 9 and
// 10, and the kernels ply meets are older, so a confined command gets no
// socket at all: socket(2) fails with EACCES. socketpair(2) stays, for
// its stream and packet types only: a pair reaches nothing outside, but a
// datagram pair could send to any socket file by name. io_uring, which
// can create sockets and change files past the filter, is reported
// missing (ENOSYS) so that programs fall back to plain system calls.

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
var errNoSocketFilter = errors.New("ply has no system call filter for " + runtime.GOARCH)

// x32Bit marks the x32 system call numbers of an x86-64 kernel, which
// would reach the denied calls by other numbers.
const x32Bit = 0x40000000

// Offsets in struct seccomp_data; an argument's low half on a
// little-endian machine, which is all of an int or unsigned int argument.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 16 + 8
)

// Numbers the filter compares that golang.org/x/sys does not name.
const (
	// ioprioWhoProcess is IOPRIO_WHO_PROCESS.
	ioprioWhoProcess = 1
	// cloneNamespaces are clone(2)'s flags that create namespaces.
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	// fsIoc32Setflags is FS_IOC32_SETFLAGS, the 32-bit form of
	// FS_IOC_SETFLAGS that 64-bit kernels accept too.
	fsIoc32Setflags = 0x40046602
	// fsIocFssetxattr is FS_IOC_FSSETXATTR (inode flags, project id).
	fsIocFssetxattr = 0x401c5820
)

// filterSpec says which rules a filter has.
type filterSpec struct {
	// network leaves sockets allowed.
	network bool
	// readOnly also denies changing files' metadata, creating
	// namespaces and tracing processes.
	readOnly bool
}

// filterFor returns the filter's rules for policy p.
func filterFor(p Policy) filterSpec {
	return filterSpec{network: p.AllowNetwork, readOnly: p.ReadOnly}
}

// systemFilter returns the filter for spec, assembled for this
// architecture.
func systemFilter(spec filterSpec) ([]bpf.RawInstruction, error) {
	arch := auditArch()
	if arch == 0 {
		return nil, errNoSocketFilter
	}
	prog, err := filterProgram(arch, spec)
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("assemble the system call filter: %w", err)
	}
	return raw, nil
}

// Return values of the filter.
var (
	retAllow   = uint32(unix.SECCOMP_RET_ALLOW)
	retKill    = uint32(unix.SECCOMP_RET_KILL_PROCESS)
	retEPERM   = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retEACCES  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retENOSYS  = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retENOTSUP = unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP)
)

// Labels of the program's shared tails.
const (
	next label = iota // the following instruction
	lAllow
	lEPERM
	lEACCES
	lENOSYS
	lENOTSUP
	lKill
	lSocketpair
	lOwnPID
	lSetpriority
	lIoprio
	lIoctl
	lClone
)

// filterProgram is the filter's program for the architecture arch. A
// system call of another architecture (32-bit compatibility calls, x32)
// kills the process: it could reach a denied call under a number the
// program does not check.
func filterProgram(arch uint32, spec filterSpec) ([]bpf.Instruction, error) {
	var a asm
	a.op(bpf.LoadAbsolute{Off: offArch, Size: 4})
	a.jeq(arch, next, lKill)
	a.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
	a.jge(x32Bit, lKill, next)
	for _, r := range filterRules(spec) {
		a.jeq(r.nr, r.to, next)
	}
	a.ret(retAllow)
	if !spec.network {
		// The socket type's low bits (SOCK_TYPE_MASK): flags such as
		// SOCK_CLOEXEC do not matter.
		a.mark(lSocketpair)
		a.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		a.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf})
		a.jeq(unix.SOCK_STREAM, lAllow, next)
		a.jeq(unix.SOCK_SEQPACKET, lAllow, lEACCES)
	}
	// prlimit64 and the scheduler's setters take a pid first: 0 is the
	// caller itself.
	a.mark(lOwnPID)
	a.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	a.jeq(0, lAllow, lEPERM)
	// setpriority(PRIO_PROCESS, 0, n) only: with who 0, PRIO_PGRP and
	// PRIO_USER would still reach ply (every process of the user).
	a.mark(lSetpriority)
	a.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	a.jeq(unix.PRIO_PROCESS, next, lEPERM)
	a.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	a.jeq(0, lAllow, lEPERM)
	// ioprio_set(IOPRIO_WHO_PROCESS, 0, n) only, for the same reason.
	a.mark(lIoprio)
	a.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	a.jeq(ioprioWhoProcess, next, lEPERM)
	a.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	a.jeq(0, lAllow, lEPERM)
	a.mark(lIoctl)
	a.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	for _, cmd := range deniedIoctls {
		a.jeq(cmd, lEPERM, next)
	}
	a.ret(retAllow)
	if spec.readOnly {
		a.mark(lClone)
		a.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
		a.jset(cloneNamespaces, lEPERM, lAllow)
	}
	a.mark(lAllow)
	a.ret(retAllow)
	a.mark(lEPERM)
	a.ret(retEPERM)
	a.mark(lEACCES)
	a.ret(retEACCES)
	a.mark(lENOSYS)
	a.ret(retENOSYS)
	a.mark(lENOTSUP)
	a.ret(retENOTSUP)
	a.mark(lKill)
	a.ret(retKill)
	return a.assemble()
}

// installFilter applies the filter for spec to the calling thread, which
// must have no_new_privs set; execve keeps it.
func installFilter(spec filterSpec) error {
	raw, err := systemFilter(spec)
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
