package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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
// it. It then sends SIGTERM to every group it was told of that still has
// a member and to every process whose environment carries ply's guard
// token, SIGKILL to what is left a second later, and exits.
//
// The guardian forgets a group once it is empty, when the next group
// registers, so that a group ID the system reuses later is not killed;
// a group that ends and whose ID is reused by an unrelated group between
// two registrations is the small exception.

type guard struct {
	w     *os.File // the write end: never closed, it ends with ply
	token string
	pid   int
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
	cmd := exec.Command(self, guardianArg, token)
	// Nothing but the helper's switch: the guardian needs no variable,
	// and any command of the user can read its environment in /proc.
	cmd.Env = []string{helperEnv}
	cmd.ExtraFiles = []*os.File{r} // fd 3; stdin, stdout and stderr are /dev/null
	// Its own group: Ctrl+C at the terminal and the group kills of a
	// timed-out command do not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start the guardian: %w", err)
	}
	pid := cmd.Process.Pid
	// Never waited for: it lives as long as ply, then init reaps it.
	_ = cmd.Process.Release()
	return &guard{w: w, token: token, pid: pid}, nil
}

// register tells the guardian about the group pgid. One short write is
// atomic, whoever else writes.
func (g *guard) register(pgid int) {
	_, _ = g.w.WriteString(strconv.Itoa(pgid) + "\n")
}

// runGuardian is the guardian's main; args holds the guard token.
func runGuardian(args []string) {
	if len(args) != 1 {
		return
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
	endAll(groups, args[0])
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

// endAll sends SIGTERM to groups and to the processes carrying token,
// then SIGKILL to those still there after guardianGrace.
func endAll(groups []int, token string) {
	signalAll := func(sig syscall.Signal) {
		for _, pg := range groups {
			_ = syscall.Kill(-pg, sig)
		}
		for _, pid := range carriers(token) {
			_ = syscall.Kill(pid, sig)
		}
	}
	groups = live(groups)
	signalAll(syscall.SIGTERM)
	deadline := time.Now().Add(guardianGrace)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if groups = live(groups); len(groups) == 0 && len(carriers(token)) == 0 {
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
