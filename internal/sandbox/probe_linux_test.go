package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// probeEnv makes the test binary a probe (see runProbe) instead of
// running tests: confined, it tries system calls and reports their
// errors, so that a test can tell the kernel's answer from the shell's.
const probeEnv = "PLY_SANDBOX_TEST_PROBE"

// maybeRunProbe runs the probe and exits when the binary was started as
// one.
func maybeRunProbe() {
	ops := os.Getenv(probeEnv)
	if ops == "" {
		return
	}
	for _, op := range strings.Split(ops, ";") {
		name, arg, _ := strings.Cut(op, ":")
		fmt.Printf("%s=%s\n", name, errName(probe(name, arg)))
	}
	os.Exit(0)
}

// errName is "ok" for nil, else the errno's name (EPERM) or the text.
func errName(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

func probe(name, arg string) error {
	pid, _ := strconv.Atoi(arg)
	switch name {
	case "chmod":
		return unix.Chmod(arg, 0o666)
	case "fchmod":
		return withFile(arg, func(fd int) error { return unix.Fchmod(fd, 0o666) })
	case "chown":
		return unix.Lchown(arg, 0, 0)
	case "fchown":
		return withFile(arg, func(fd int) error { return unix.Fchown(fd, 0, 0) })
	case "utimes":
		return unix.UtimesNano(arg, []unix.Timespec{{Sec: 1}, {Sec: 1}})
	case "setxattr":
		return unix.Setxattr(arg, "user.ply", []byte("x"), 0)
	case "removexattr":
		return unix.Removexattr(arg, "user.ply")
	case "chattr":
		return withFile(arg, func(fd int) error {
			flags, err := unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS)
			if err != nil {
				return err
			}
			return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags)
		})
	case "read":
		_, err := os.ReadFile(arg)
		return err
	case "reboot":
		// Bad magic numbers: a caller with CAP_SYS_BOOT gets EINVAL, any
		// other EPERM, and nothing reboots.
		_, _, errno := unix.RawSyscall(unix.SYS_REBOOT, 0, 0, 0)
		return errnoErr(errno)
	case "sethostname":
		// Too long a name: EINVAL past the capability check, EPERM
		// before it; the name never changes.
		return unix.Sethostname(make([]byte, 65))
	case "settimeofday":
		// Neither time nor zone: only the capability check runs.
		_, _, errno := unix.RawSyscall(unix.SYS_SETTIMEOFDAY, 0, 0, 0)
		return errnoErr(errno)
	case "shmget":
		id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
		if err == nil {
			_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		}
		return err
	case "keyctl":
		_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_USER_KEYRING, 0, 0, 0)
		return err
	case "prlimit", "prlimitself":
		var old unix.Rlimit
		return unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &old)
	case "setpriority", "setpriorityself":
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
		if err != nil {
			return err
		}
		// The raw value is 20-nice; setting the same nice changes nothing.
		return unix.Setpriority(unix.PRIO_PROCESS, pid, 20-prio)
	case "caps":
		return nonzeroCaps()
	case "hold":
		return hold()
	case "peek":
		return peekNondumpable()
	case "peekoutside":
		return peekEnviron(pid)
	}
	return fmt.Errorf("unknown probe %q", name)
}

func errnoErr(errno syscall.Errno) error {
	if errno == 0 {
		return nil
	}
	return errno
}

func withFile(path string, f func(fd int) error) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return f(fd)
}

// nonzeroCaps reports any capability set of this process that is not
// empty.
func nonzeroCaps() error {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if strings.HasPrefix(k, "Cap") && strings.Trim(strings.TrimSpace(v), "0") != "" {
			return fmt.Errorf("%s is %s", k, strings.TrimSpace(v))
		}
	}
	return nil
}

// hold makes this process non-dumpable, as ply makes itself, says so on
// stdout and waits for stdin to close.
func hold() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return err
	}
	fmt.Println("held")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return nil
}

// peekNondumpable starts a non-dumpable process of the same user in the
// same sandbox and tries to read its environment, which only
// CAP_SYS_PTRACE allows.
func peekNondumpable() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), probeEnv+"=hold", "PLY_SECRET=hidden")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		return fmt.Errorf("the held process said %q", line)
	}
	return peekEnviron(cmd.Process.Pid)
}

// peekEnviron reads /proc/pid/environ and fails when it can be read and
// holds PLY_SECRET.
func peekEnviron(pid int) error {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return err
	}
	if strings.Contains(string(b), "PLY_SECRET") {
		return errors.New("read the environment")
	}
	return errors.New("empty environment")
}

// probeRun runs the probe binary confined by p with the given operations
// and returns each operation's result by name.
func probeRun(t *testing.T, p Policy, env []string, ops ...string) map[string]string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(append(os.Environ(), env...), probeEnv+"="+strings.Join(ops, ";"))
	p.ReadableDirs = append(p.ReadableDirs, filepath.Dir(self))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startConfined(cmd, p); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("probe %q: %v\n%s", ops, err, out.String())
	}
	got := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	return got
}
