package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A command's process tree is tracked by a cgroup v2 directory where one
// can be made: ply creates a child of its own cgroup, and every guarded
// command starts in it (clone3 with CLONE_INTO_CGROUP, so nothing runs
// before it is inside). Everything the command starts stays in it
// whatever it does to its session, process group, environment or
// dumpable flag: only a write to a cgroup.procs file it may write moves a
// process out. The guardian ends the commands by writing cgroup.kill, or,
// on kernels before 5.14, by freezing the cgroup and killing its members
// one by one, and then removes the directory.

// cgroupTree is the cgroup guarded commands start in.
type cgroupTree struct {
	dir string
	fd  int // the directory, opened O_PATH: the clone3 target
}

// cgroupNamePrefix starts the name of every cgroup ply creates.
const cgroupNamePrefix = "ply-"

// newCgroupTree creates a cgroup named cgroupNamePrefix+name below this
// process's own and checks that a process can start in it (probeCgroup).
// It fails where there is no cgroup v2 hierarchy or this process may not
// create or enter cgroups in it (the usual case outside a login session
// that delegates one).
func newCgroupTree(name string) (*cgroupTree, error) {
	own, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(own, cgroupNamePrefix+name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create a cgroup for the commands: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("open the commands' cgroup: %w", err)
	}
	cg := &cgroupTree{dir: dir, fd: fd}
	if err := cg.probe(); err != nil {
		cg.close()
		return nil, fmt.Errorf("start a process in the commands' cgroup: %w", err)
	}
	return cg, nil
}

// probePath is a program that cannot exist: below a file, not a
// directory.
const probePath = "/dev/null/ply-cgroup-probe"

// probe checks that a process can start in the cgroup: it starts one
// there (clone3 with CLONE_INTO_CGROUP) whose exec of probePath fails, so
// that nothing runs and no program is loaded. A process that could not
// start in the cgroup fails in clone3, with another error than the
// exec's; running a real program (true(1)) cost milliseconds more.
func (cg *cgroupTree) probe() error {
	cmd := exec.Command(probePath)
	cmd.Env = []string{}
	cg.enter(cmd)
	err := cmd.Run()
	switch {
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENOENT):
		return nil // started in the cgroup; its exec failed as meant to
	case err == nil:
		return fmt.Errorf("%s ran", probePath)
	default:
		return err
	}
}

// enter makes cmd, not yet started, start in the cgroup.
func (cg *cgroupTree) enter(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = cg.fd
}

// moveIntoCgroup moves the process pid into the cgroup whose directory
// cgroupFD holds, for a command that could not start inside it. What the
// command started before the move stays outside the cgroup; the guardian's
// process-group and token checks still reach it.
func moveIntoCgroup(cgroupFD, pid int) {
	fd, err := unix.Openat(cgroupFD, "cgroup.procs", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		slog.Warn("move a confined command into the commands' cgroup", "pid", pid, "err", err)
		return
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte(strconv.Itoa(pid))); err != nil {
		slog.Warn("move a confined command into the commands' cgroup", "pid", pid, "err", err)
	}
}

// close gives the cgroup up: it closes the descriptor and removes the
// directory, which fails harmlessly while a process is still inside.
func (cg *cgroupTree) close() {
	_ = unix.Close(cg.fd)
	_ = os.Remove(cg.dir)
}

// ownCgroup returns the directory of this process's cgroup in the cgroup
// v2 hierarchy, as mounted here.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("read this process's cgroup: %w", err)
	}
	var path string
	found := false
	for l := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			path, found = p, true
		}
	}
	if !found {
		return "", errors.New("this process is in no cgroup v2 hierarchy")
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("read the mounts: %w", err)
	}
	defer f.Close()
	return cgroupDir(f, path)
}

// cgroupDir finds the directory of the cgroup path (as /proc/self/cgroup
// names it) in a cgroup2 mount listed in mountinfo.
func cgroupDir(mountinfo io.Reader, path string) (string, error) {
	sc := bufio.NewScanner(mountinfo)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		root, mnt := unescapeMount(f[3]), unescapeMount(f[4])
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue // the mount shows another part of the hierarchy
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupProcs returns the processes in the cgroup dir.
func cgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for l := range strings.SplitSeq(string(b), "\n") {
		if pid, err := strconv.Atoi(l); err == nil && pid > 1 {
			out = append(out, pid)
		}
	}
	return out
}

// cgroupPopulated reports whether a process is left in the cgroup dir or
// below it; a cgroup that cannot be read counts as empty.
func cgroupPopulated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return false
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "populated "); ok {
			return v != "0"
		}
	}
	return false
}

// signalCgroup sends sig to every process in the cgroup dir and below.
func signalCgroup(dir string, sig syscall.Signal) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			for _, pid := range cgroupProcs(p) {
				_ = syscall.Kill(pid, sig)
			}
		}
		return nil
	})
}

// killCgroup sends SIGKILL to everything in the cgroup dir and below:
// cgroup.kill where the kernel has it, or else freezing the cgroup, so
// that nothing forks while the guardian lists it, and killing its
// members (a frozen process still dies of SIGKILL).
func killCgroup(dir string) {
	if os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, "cgroup.freeze"), []byte("1"), 0)
	signalCgroup(dir, syscall.SIGKILL)
	_ = os.WriteFile(filepath.Join(dir, "cgroup.freeze"), []byte("0"), 0)
}

// removeCgroup waits up to wait for the cgroup dir and the cgroups below
// it to empty and removes them, deepest first.
func removeCgroup(dir string, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for cgroupPopulated(dir) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
}
