package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestFilterProgram runs the filter's programs in a BPF interpreter over
// hand-made seccomp_data, covering the paths the kernel tests cannot
// reach (a foreign architecture, x32 numbers) and each rule's arguments.
func TestFilterProgram(t *testing.T) {
	arch := auditArch()
	if arch == 0 {
		t.Skip("no filter for this architecture")
	}
	// The interpreter loads big-endian; the kernel loads native words,
	// so each field is written as the word the program compares.
	data := func(a, nr, arg0, arg1 uint32) []byte {
		b := make([]byte, 64)
		binary.BigEndian.PutUint32(b[offNr:], nr)
		binary.BigEndian.PutUint32(b[offArch:], a)
		binary.BigEndian.PutUint32(b[offArg0:], arg0)
		binary.BigEndian.PutUint32(b[offArg1:], arg1)
		return b
	}
	allow, eperm, eacces := int(retAllow), int(retEPERM), int(retEACCES)
	enosys, enotsup, kill := int(retENOSYS), int(retENOTSUP), int(retKill)
	type want struct{ ro, sandbox, network int }
	same := func(v int) want { return want{v, v, v} }
	for _, c := range []struct {
		name              string
		a, nr, arg0, arg1 uint32
		want              want
	}{
		{"read", arch, unix.SYS_READ, 0, 0, same(allow)},
		{"socket", arch, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, want{eacces, eacces, allow}},
		{"io_uring_setup", arch, unix.SYS_IO_URING_SETUP, 0, 0, same(enosys)},
		{"socketpair stream", arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, same(allow)},
		{"socketpair seqpacket", arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_SEQPACKET, same(allow)},
		{"socketpair dgram", arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK, want{eacces, eacces, allow}},
		{"foreign architecture", 0x40000003, 102, 0, 0, same(kill)},
		{"x32", arch, x32Bit | unix.SYS_SOCKET, 0, 0, same(kill)},
		{"fchmodat", arch, unix.SYS_FCHMODAT, 0, 0, want{eperm, allow, allow}},
		{"fchownat", arch, unix.SYS_FCHOWNAT, 0, 0, want{eperm, allow, allow}},
		{"utimensat", arch, unix.SYS_UTIMENSAT, 0, 0, want{eperm, allow, allow}},
		{"fsetxattr", arch, unix.SYS_FSETXATTR, 0, 0, same(enotsup)},
		{"removexattrat", arch, unix.SYS_REMOVEXATTRAT, 0, 0, same(enotsup)},
		{"reboot", arch, unix.SYS_REBOOT, 0, 0, same(eperm)},
		{"init_module", arch, unix.SYS_FINIT_MODULE, 0, 0, same(eperm)},
		{"shmat", arch, unix.SYS_SHMAT, 0, 0, same(eperm)},
		{"bpf", arch, unix.SYS_BPF, 0, 0, same(eperm)},
		{"ptrace", arch, unix.SYS_PTRACE, 0, 0, want{eperm, allow, allow}},
		{"unshare", arch, unix.SYS_UNSHARE, unix.CLONE_NEWUSER, 0, want{eperm, allow, allow}},
		{"clone", arch, unix.SYS_CLONE, unix.CLONE_VM | unix.CLONE_THREAD, 0, same(allow)},
		{"clone new user", arch, unix.SYS_CLONE, unix.CLONE_NEWUSER | uint32(unix.SIGCHLD), 0, want{eperm, allow, allow}},
		{"clone3", arch, unix.SYS_CLONE3, 0, 0, want{enosys, allow, allow}},
		{"prlimit self", arch, unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, same(allow)},
		{"prlimit other", arch, unix.SYS_PRLIMIT64, 4242, unix.RLIMIT_NOFILE, same(eperm)},
		{"sched_setaffinity other", arch, unix.SYS_SCHED_SETAFFINITY, 4242, 0, same(eperm)},
		{"setpriority self", arch, unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, 0, same(allow)},
		{"setpriority other", arch, unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, 4242, same(eperm)},
		{"setpriority user", arch, unix.SYS_SETPRIORITY, unix.PRIO_USER, 0, same(eperm)},
		{"ioprio_set self", arch, unix.SYS_IOPRIO_SET, ioprioWhoProcess, 0, same(allow)},
		{"ioprio_set group", arch, unix.SYS_IOPRIO_SET, 2, 0, same(eperm)},
		{"ioctl TCGETS", arch, unix.SYS_IOCTL, 1, unix.TCGETS, same(allow)},
		{"ioctl chattr", arch, unix.SYS_IOCTL, 3, unix.FS_IOC_SETFLAGS, same(eperm)},
		{"ioctl TIOCSTI", arch, unix.SYS_IOCTL, 0, unix.TIOCSTI, same(eperm)},
	} {
		for _, s := range []struct {
			spec filterSpec
			want int
		}{{filterSpec{readOnly: true}, c.want.ro}, {filterSpec{}, c.want.sandbox}, {filterSpec{network: true}, c.want.network}} {
			prog, err := filterProgram(arch, s.spec)
			if err != nil {
				t.Fatal(err)
			}
			vm, err := bpf.NewVM(prog)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(data(c.a, c.nr, c.arg0, c.arg1))
			if err != nil || got != s.want {
				t.Errorf("%s %+v: %#x, %v; want %#x", c.name, s.spec, got, err, s.want)
			}
		}
	}
}

// TestFilterSize keeps the filter small enough to read and far from the
// reach of BPF's 8-bit conditional jumps, and checks that it assembles
// for the kernel.
func TestFilterSize(t *testing.T) {
	if auditArch() == 0 {
		t.Skip("no filter for this architecture")
	}
	raw, err := systemFilter(filterSpec{readOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 160 {
		t.Errorf("the read-only filter has %d instructions", len(raw))
	}
	t.Logf("read-only filter: %d instructions", len(raw))
}

// TestAsmErrors checks that the assembler refuses what BPF cannot do
// rather than emitting a wrong jump.
func TestAsmErrors(t *testing.T) {
	var a asm
	a.jeq(1, lAllow, next)
	if _, err := a.assemble(); err == nil {
		t.Error("a jump to an unplaced label assembled")
	}
	a = asm{}
	a.jeq(1, lAllow, next)
	for range 256 {
		a.ret(0)
	}
	a.mark(lAllow)
	a.ret(0)
	if _, err := a.assemble(); err == nil {
		t.Error("a jump of 256 instructions assembled")
	}
	a = asm{}
	a.mark(lAllow)
	a.ret(0)
	a.jeq(1, lAllow, next)
	if _, err := a.assemble(); err == nil {
		t.Error("a backward jump assembled")
	}
	a = asm{}
	a.mark(lAllow)
	a.mark(lAllow)
	if _, err := a.assemble(); err == nil {
		t.Error("a label placed twice assembled")
	}
}
