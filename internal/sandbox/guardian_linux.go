package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The guardian is a small process, this executable started once in its
// own process group, that ends the commands of a ply that ended. It
// reads process group IDs, one a line, from a pipe whose write end only
// ply holds; end of file on that pipe means ply is gone, whatever killed
// it. It then sends SIGTERM to every process in the commands' cgroup (see
// guardian_cgroup_linux.go), to every group it was told of that still
// has a member and to every process whose environment carries ply's
// guard token, SIGKILL to what is left a second later, removes the
// cgroup and exits.
//
// The cgroup is what a command cannot shed. Without one (no cgroup v2
// hierarchy ply may create cgroups in), the groups and the token are
// all there is: a process that leaves its group and also clears or
// overwrites its environment, or makes itself non-dumpable so that its
// environment cannot be read, escapes. PR_SET_CHILD_SUBREAPER does not
// close that gap: the guardian is not an ancestor of the commands, and
// a ply that is a subreaper holds its orphans only while it lives; when
// it is killed they pass to init before the guardian learns of it.
//
// The guardian forgets a group once it is empty, when the next group
// registers, so that a group ID the system reuses later is not killed;
// a group that ends and whose ID is reused by an unrelated group between
// two registrations is the small exception.

type guard struct {
	w     *os.File // the write end: never closed, it ends with ply
	token string
	pid   int
	cg    *cgroupTree // nil where no cgroup could be made
}

var guardian struct {
	once sync.Once
	g    *guard
	err  error
}

// guardianGrace is the time between SIGTERM and SIGKILL.
const guardianGrace = time.Second

// startedGuardian starts the guardian the first time it is called.
func startedGuardian() (*guard, error) {
	guardian.once.Do(func() { guardian.g, guardian.err = startGuardian() })
	return guardian.g, guardian.err
}

func startGuardian() (*guard, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the guardian executable: %w", err)
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create the guardian's pipe: %w", err)
	}
	defer r.Close()
	args := []string{guardianArg, token}
	cg, err := newCgroupTree(strconv.Itoa(os.Getpid()) + "-" + token[:8])
	if err != nil {
		slog.Debug("shell commands are tracked without a cgroup", "err", err)
	} else {
		args = append(args, cg.dir)
	}
	cmd := guardianCommand(self, args...)
	cmd.ExtraFiles = []*os.File{r} // fd 3; stdin, stdout and stderr are /dev/null
	// Its own group: Ctrl+C at the terminal and the group kills of a
	// timed-out command do not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		if cg != nil {
			cg.close()
		}
		return nil, fmt.Errorf("start the guardian: %w", err)
	}
	pid := cmd.Process.Pid
	// Never waited for: it lives as long as ply, then init reaps it.
	_ = cmd.Process.Release()
	return &guard{w: w, token: token, pid: pid, cg: cg}, nil
}

// guardianCommand returns the command that starts self as the guardian
// with args. Its environment holds nothing but the helper's switch: the
// guardian needs no variable, and any command of the user can read its
// environment in /proc.
func guardianCommand(self string, args ...string) *exec.Cmd {
	cmd := exec.Command(self, args...)
	cmd.Env = []string{helperEnv}
	return cmd
}

// enter makes cmd, not yet started, start in the commands' cgroup, where
// there is one.
func (g *guard) enter(cmd *exec.Cmd) {
	if g.cg != nil {
		g.cg.enter(cmd)
	}
}

// register tells the guardian about the group pgid. One short write is
// atomic, whoever else writes.
func (g *guard) register(pgid int) {
	_, _ = g.w.WriteString(strconv.Itoa(pgid) + "\n")
}

// runGuardian is the guardian's main; args holds the guard token and,
// where there is one, the commands' cgroup.
func runGuardian(args []string) {
	if len(args) < 1 || len(args) > 2 {
		return
	}
	cg := ""
	if len(args) == 2 {
		cg = args[1]
	}
	// A ply that ends by a signal to its terminal's process group, or
	// a guardian of an enclosing ply, must not stop it before its work.
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	in := bufio.NewScanner(os.NewFile(3, "guardian"))
	var groups []int
	for in.Scan() {
		pg, err := strconv.Atoi(in.Text())
		if err != nil || pg <= 1 {
			continue
		}
		groups = append(live(groups), pg)
	}
	endAll(groups, args[0], cg)
}

// live returns the groups that still have a member.
func live(groups []int) []int {
	out := groups[:0]
	for _, pg := range groups {
		if err := syscall.Kill(-pg, 0); !errors.Is(err, syscall.ESRCH) {
			out = append(out, pg)
		}
	}
	return out
}

// endAll sends SIGTERM to the processes in the cgroup cg ("" for none),
// to groups and to the processes carrying token, then SIGKILL to those
// still there after guardianGrace, and removes cg.
func endAll(groups []int, token, cg string) {
	signalAll := func(sig syscall.Signal) {
		if cg != "" {
			if sig == syscall.SIGKILL {
				killCgroup(cg)
			} else {
				signalCgroup(cg, sig)
			}
		}
		for _, pg := range groups {
			_ = syscall.Kill(-pg, sig)
		}
		for _, pid := range carriers(token) {
			_ = syscall.Kill(pid, sig)
		}
	}
	done := func() bool {
		groups = live(groups)
		return len(groups) == 0 && (cg == "" || !cgroupPopulated(cg)) && len(carriers(token)) == 0
	}
	if cg != "" {
		defer removeCgroup(cg, 5*time.Second)
	}
	groups = live(groups)
	signalAll(syscall.SIGTERM)
	deadline := time.Now().Add(guardianGrace)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if done() {
			return
		}
	}
	signalAll(syscall.SIGKILL)
}

// carriers returns the processes, other than this one, whose environment
// carries token. Zombies, whose environment is gone, are not among them.
func carriers(token string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && hasGuardToken(env, token) {
			out = append(out, pid)
		}
	}
	return out
}
