package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestSocketProgram runs the filter's program in a BPF interpreter over
// hand-made seccomp_data, covering the paths the kernel tests cannot
// reach (a foreign architecture, x32 numbers).
func TestSocketProgram(t *testing.T) {
	const arch = 0xc000003e
	vm, err := bpf.NewVM(socketProgram(arch))
	if err != nil {
		t.Fatal(err)
	}
	// The interpreter loads big-endian; the kernel loads native words,
	// so each field is written as the word the program compares.
	data := func(a, nr, arg1 uint32) []byte {
		b := make([]byte, 64)
		binary.BigEndian.PutUint32(b[offNr:], nr)
		binary.BigEndian.PutUint32(b[offArch:], a)
		binary.BigEndian.PutUint32(b[offArg1:], arg1)
		return b
	}
	eacces := int(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	enosys := int(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	kill := int(uint32(unix.SECCOMP_RET_KILL_PROCESS))
	allow := int(uint32(unix.SECCOMP_RET_ALLOW))
	for _, c := range []struct {
		name        string
		a, nr, arg1 uint32
		want        int
	}{
		{"read", arch, unix.SYS_READ, 0, allow},
		{"socket", arch, unix.SYS_SOCKET, unix.SOCK_STREAM, eacces},
		{"io_uring_setup", arch, unix.SYS_IO_URING_SETUP, 0, enosys},
		{"socketpair stream", arch, unix.SYS_SOCKETPAIR, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, allow},
		{"socketpair seqpacket", arch, unix.SYS_SOCKETPAIR, unix.SOCK_SEQPACKET, allow},
		{"socketpair dgram", arch, unix.SYS_SOCKETPAIR, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK, eacces},
		{"foreign architecture", 0x40000003, 102, 0, kill},
		{"x32", arch, x32Bit | unix.SYS_SOCKET, 0, kill},
	} {
		got, err := vm.Run(data(c.a, c.nr, c.arg1))
		if err != nil || got != c.want {
			t.Errorf("%s: %#x, %v; want %#x", c.name, got, err, c.want)
		}
	}
}
