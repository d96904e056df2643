package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The guardian is a small process, this executable started once in its
// own process group, that ends the commands of a ply that ended. It
// reads process group IDs, one a line, from a pipe whose write end only
// ply holds (and a helper, between its start and its exec). End of file
// on that pipe means ply is gone, whatever killed it, and no helper is
// still starting: the guardian then sends SIGTERM to every group it was
// told of that still has a member, SIGKILL a second later, and exits.
//
// The guardian forgets a group once it is empty, when the next group
// registers, so that a group ID the system reuses later is not killed;
// a group that ends and whose ID is reused by an unrelated group between
// two registrations is the small exception.

var guardian struct {
	once sync.Once
	w    *os.File // the write end: never closed, it ends with ply
	err  error
}

// guardianGrace is the time between SIGTERM and SIGKILL.
const guardianGrace = time.Second

// guardianPipe starts the guardian the first time it is called and
// returns the write end of its pipe, for a helper to inherit.
func guardianPipe() (*os.File, error) {
	guardian.once.Do(func() { guardian.w, guardian.err = startGuardian() })
	return guardian.w, guardian.err
}

func startGuardian() (*os.File, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the guardian executable: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create the guardian's pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(self, guardianArg)
	cmd.Env = append(os.Environ(), helperEnv)
	cmd.ExtraFiles = []*os.File{r} // fd 3; stdin, stdout and stderr are /dev/null
	// Its own group: Ctrl+C at the terminal and the group kills of a
	// timed-out command do not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start the guardian: %w", err)
	}
	// Never waited for: it lives as long as ply, then init reaps it.
	_ = cmd.Process.Release()
	return w, nil
}

// register tells the guardian on fd that this process's group is to be
// killed with ply, and closes fd so that the command does not inherit it.
// A guardian that is gone (ply died) makes it fail: nothing must start.
func register(fd int) error {
	f := os.NewFile(uintptr(fd), "guardian")
	defer f.Close()
	line := strconv.Itoa(syscall.Getpgrp()) + "\n" // one write below PIPE_BUF: atomic
	if _, err := f.WriteString(line); err != nil {
		return fmt.Errorf("register with ply's guardian (ply has ended?): %w", err)
	}
	return nil
}

// runGuardian is the guardian's main.
func runGuardian() {
	in := bufio.NewScanner(os.NewFile(3, "guardian"))
	var groups []int
	for in.Scan() {
		pg, err := strconv.Atoi(in.Text())
		if err != nil || pg <= 1 {
			continue
		}
		groups = append(live(groups), pg)
	}
	endGroups(groups)
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

// endGroups sends SIGTERM to groups, then SIGKILL to those still there
// after guardianGrace.
func endGroups(groups []int) {
	groups = live(groups)
	for _, pg := range groups {
		_ = syscall.Kill(-pg, syscall.SIGTERM)
	}
	deadline := time.Now().Add(guardianGrace)
	for len(groups) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		groups = live(groups)
	}
	for _, pg := range groups {
		_ = syscall.Kill(-pg, syscall.SIGKILL)
	}
}
