//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// roleEnv makes the test binary play a part in TestGuardianOutlivesEscapes
// instead of running tests: "ply" starts the commands it is given, as ply
// does, and waits to be killed; "nodump" is a command that hides its
// environment and blocks.
const roleEnv = "PLY_SANDBOX_TEST_ROLE"

func init() {
	switch os.Getenv(roleEnv) {
	case "ply":
		playPly()
	case "nodump":
		playNonDumpable()
	}
}

// playPly starts every line of its standard input as a shell command the
// way the shell tool does (own session, GuardTree, Track), says "started",
// and waits to be killed.
func playPly() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd := exec.Command("/bin/sh", "-c", in.Text())
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Env = append(os.Environ(), roleEnv+"=")
		GuardTree(cmd)
		if err := cmd.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		Track(cmd.Process.Pid)
		go func() { _ = cmd.Wait() }()
	}
	fmt.Println("started")
	select {}
}

// playNonDumpable makes itself non-dumpable, which hides its environment
// from processes without CAP_SYS_PTRACE, leaves its process group, writes
// its pid to the file $PIDFILE names and blocks reading standard input.
func playNonDumpable() {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		os.Exit(3)
	}
	if _, err := syscall.Setsid(); err != nil {
		os.Exit(4)
	}
	if err := os.WriteFile(os.Getenv("PIDFILE"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		os.Exit(5)
	}
	_, _ = os.Stdin.Read(make([]byte, 1))
	os.Exit(0)
}

// TestGuardianOutlivesEscapes kills a stand-in for ply with SIGKILL while
// two of its commands' descendants hide from the guardian's older means:
// one left its session and cleared its environment (setsid env -i), the
// other left its session and made itself non-dumpable, so that its
// environment cannot be read. Both must end with ply.
func TestGuardianOutlivesEscapes(t *testing.T) {
	ply, dir, self := standIn(t)
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	// Held open for writing, so that readers of the fifo block for good.
	hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	a, b := filepath.Join(dir, "a.pid"), filepath.Join(dir, "b.pid")
	ply.Stdin = strings.NewReader(fmt.Sprintf(
		"setsid env -i /bin/sh -c 'echo $$ > \"$1\"; exec cat' sh %s < %s &\n"+
			"%s=nodump PIDFILE=%s %s < %s &\n",
		q(a), q(fifo), roleEnv, q(b), q(self), q(fifo)))
	out, err := ply.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ply.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ply.Process.Kill(); _ = ply.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
		t.Fatalf("the stand-in for ply said %q", line)
	}
	var fds []int
	for _, f := range []string{a, b} {
		pid := waitPIDFile(f, time.Minute)
		if pid == 0 {
			t.Fatalf("%s: no pid", f)
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatalf("pidfd_open %d: %v", pid, err)
		}
		defer unix.Close(fd)
		defer func() { _ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) }()
		fds = append(fds, fd)
	}
	_ = ply.Process.Signal(syscall.SIGKILL)
	_ = ply.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for i, fd := range fds {
		if !waitExit(fd, time.Until(deadline)) {
			t.Errorf("process %d (%s) outlived ply", i, []string{"setsid env -i", "non-dumpable"}[i])
		}
	}
}

// standIn returns the stand-in for ply, not started, a directory it can
// write and the test binary's path for its commands. A process can read
// the environment of a non-dumpable process of the same user only with
// CAP_SYS_PTRACE; so that the test means the same for root, root runs the
// stand-in as nobody, in a cgroup delegated to nobody as a login session
// delegates one to its user. Elsewhere the stand-in needs a cgroup it can
// create below its own, or the test is skipped.
func standIn(t *testing.T) (ply *exec.Cmd, dir, self string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	ply = exec.Command(self, "-test.run=^$")
	ply.Env = append(os.Environ(), roleEnv+"=ply")
	own, ok := ownCgroupDir()
	if os.Geteuid() != 0 {
		if !ok || unix.Access(own, unix.W_OK) != nil {
			t.Skip("no cgroup v2 directory of this process's that it can write")
		}
		return ply, dir, self
	}
	if !ok {
		t.Skip("no cgroup v2 hierarchy here")
	}
	const nobody = 65534
	deleg := filepath.Join(own, "ply-test-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(deleg, 0o755); err != nil {
		t.Skipf("cannot create a cgroup: %v", err)
	}
	t.Cleanup(func() {
		killCgroup(deleg)
		removeCgroup(deleg, 10*time.Second)
	})
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		if err := os.Chown(filepath.Join(deleg, f), nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := unix.Open(deleg, unix.O_DIRECTORY|unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	ply.SysProcAttr = &syscall.SysProcAttr{
		UseCgroupFD: true, CgroupFD: fd,
		Credential: &syscall.Credential{Uid: nobody, Gid: nobody},
	}
	// The test binary and the directory must be nobody's to use.
	copied := filepath.Join(dir, "bin", filepath.Base(self))
	if err := os.Mkdir(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(self, copied); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != filepath.Dir(d) && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
			t.Fatal(err)
		}
	}
	ply.Path, ply.Args[0] = copied, copied
	return ply, dir, copied
}

// ownCgroupDir returns this process's cgroup v2 directory.
func ownCgroupDir() (string, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
				if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err == nil {
					return filepath.Join(root, p), true
				}
			}
		}
	}
	return "", false
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// waitPIDFile waits up to timeout for path to hold a pid and a newline.
func waitPIDFile(path string, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// waitExit waits up to timeout for the process behind pidfd to end: the
// descriptor becomes readable then.
func waitExit(pidfd int, timeout time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if err == nil && n > 0 {
			return true
		}
		if err != nil && err != unix.EINTR {
			return false
		}
	}
}

// TestConfinedCommandIsInCgroup checks that a command confined by the
// read-only profile is in the commands' cgroup by the time Start returns,
// whether started from a confined thread (whose filter refuses clone3, so
// Start moves it there right after it starts) or through the helper. The
// command reads its cgroup only once released, after Start returned.
func TestConfinedCommandIsInCgroup(t *testing.T) {
	requireLandlock(t)
	g, err := startedGuardian()
	if err != nil {
		t.Fatal(err)
	}
	if g.cg == nil {
		t.Skip("no cgroup for the commands here")
	}
	for name, start := range map[string]func(*exec.Cmd) error{
		"thread": func(c *exec.Cmd) error { return Start(c, ReadOnlyPolicy("")) },
		"helper": func(c *exec.Cmd) error { return startThroughHelper(c, ReadOnlyPolicy("")) },
	} {
		cmd := exec.Command("sh", "-c", "read _; cat /proc/self/cgroup")
		GuardTree(cmd)
		release, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		cmd.Stdout = &out
		if err := start(cmd); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := release.Write([]byte("go\n")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		release.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := "0::" + strings.TrimPrefix(g.cg.dir, filepath.Dir(g.cg.dir))
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s: the command's cgroups are %q, want %q among them", name, out.String(), want)
		}
	}
}

func TestCgroupDir(t *testing.T) {
	const mounts = "30 1 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
	for _, c := range []struct{ mountinfo, path, want string }{
		{mounts, "/", "/sys/fs/cgroup/unified"},
		{mounts, "/user.slice/a b", "/sys/fs/cgroup/unified/user.slice/a b"},
		{"1 1 0:1 / /proc rw - proc proc rw\n31 1 0:26 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/docker/x/y", "/sys/fs/cgroup/y"},
		{"31 1 0:26 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/other", ""},
		{"31 1 0:26 / /mnt/c\\040g rw shared:1 - cgroup2 none rw\n", "/a", "/mnt/c g/a"},
		{"31 1 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n", "/", ""},
	} {
		got, err := cgroupDir(strings.NewReader(c.mountinfo), c.path)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("cgroupDir(%q, %q) = %q, %v; want %q", c.mountinfo, c.path, got, err, c.want)
		}
	}
}

func FuzzCgroupDir(f *testing.F) {
	f.Add("31 1 0:26 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/docker/x/y")
	f.Add("31 1 0:26 / /mnt/c\\040g\\ rw - cgroup2 none rw\n", "/")
	f.Fuzz(func(t *testing.T, mountinfo, path string) {
		dir, err := cgroupDir(strings.NewReader(mountinfo), path)
		if err != nil {
			return
		}
		// The directory must lie in the mount point of a cgroup2 line.
		for l := range strings.SplitSeq(mountinfo, "\n") {
			pre, post, _ := strings.Cut(l, " - ")
			if f := strings.Fields(pre); strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 {
				m := filepath.Clean(unescapeMount(f[4]))
				if dir == m || strings.HasPrefix(dir, strings.TrimSuffix(m, "/")+"/") {
					return
				}
			}
		}
		t.Errorf("cgroupDir(%q, %q) = %q, outside every cgroup2 mount", mountinfo, path, dir)
	})
}
