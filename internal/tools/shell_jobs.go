package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/plyhq/ply/internal/sandbox"
)

// ShellJob describes a background job.
type ShellJob struct {
	ID      string
	PID     int // also the process group ID
	Command string
	Dir     string
	Started time.Time
	Running bool
	// ExitCode is -1 while running or when killed by a signal.
	ExitCode int
	Signal   string
	// Output is the job's combined output so far, capped like a
	// foreground command's.
	Output string
}

// shellMaxFinishedJobs bounds how many finished jobs stay listed, so that
// a long session does not keep every old output.
const shellMaxFinishedJobs = 20

// shellJobs tracks the background jobs of one Shell.
type shellJobs struct {
	mu     sync.Mutex
	next   int
	jobs   []*shellJob // in start order
	closed bool
}

type shellJob struct {
	id, command, dir string
	pid              int
	started          time.Time
	out              *shellCapture
	r                *os.File
	exited           chan struct{} // closed when the leader is reaped
	done             chan struct{} // closed when the output is drained too
	state            *os.ProcessState
}

// start starts cmd with start as a job; cleanup runs once the job is
// done, or at once if it does not start.
func (m *shellJobs) start(cmd *exec.Cmd, start func() error, r *os.File, command, dir string, cleanup func()) (*shellJob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		cleanup()
		return nil, errors.New("the shell tool is closed")
	}
	if err := start(); err != nil {
		cleanup()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	sandbox.Track(cmd.Process.Pid)
	m.next++
	j := &shellJob{
		id: fmt.Sprintf("bg-%d", m.next), command: command, dir: dir,
		pid: cmd.Process.Pid, started: time.Now(),
		out: newShellCapture(shellMaxOutput), r: r,
		exited: make(chan struct{}), done: make(chan struct{}),
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		shellCopy(r, j.out, nil)
	}()
	go func() {
		_ = cmd.Wait() // the status is read from ProcessState
		m.mu.Lock()
		j.state = cmd.ProcessState
		m.mu.Unlock()
		close(j.exited)
		// Unlike a foreground command, a job's output is read to the end:
		// processes the leader left behind are still the job. kill closes
		// the pipe when they escaped the group.
		<-readDone
		r.Close()
		cleanup()
		close(j.done)
	}()
	m.jobs = append(m.jobs, j)
	m.prune()
	return j, nil
}

// prune drops the oldest finished jobs beyond shellMaxFinishedJobs.
func (m *shellJobs) prune() {
	finished := 0
	for i := len(m.jobs) - 1; i >= 0; i-- {
		if !m.jobs[i].finished() {
			continue
		}
		if finished++; finished > shellMaxFinishedJobs {
			m.jobs = append(m.jobs[:i], m.jobs[i+1:]...)
		}
	}
}

func (j *shellJob) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

func (m *shellJobs) list() []ShellJob {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ShellJob, 0, len(m.jobs))
	for _, j := range m.jobs {
		code, sig := -1, ""
		if j.state != nil {
			code, sig = shellExitStatus(j.state)
		}
		out = append(out, ShellJob{
			ID: j.id, PID: j.pid, Command: j.command, Dir: j.dir, Started: j.started,
			Running: j.state == nil, ExitCode: code, Signal: sig, Output: j.out.String(),
		})
	}
	return out
}

func (m *shellJobs) kill(id string) error {
	m.mu.Lock()
	var job *shellJob
	for _, j := range m.jobs {
		if j.id == id {
			job = j
		}
	}
	m.mu.Unlock()
	if job == nil {
		return fmt.Errorf("no background job %q", id)
	}
	job.kill()
	return nil
}

// kill ends the job's process group and waits until the job is done.
func (j *shellJob) kill() {
	select {
	case <-j.exited:
		// The leader is gone; members may still be alive.
		_ = syscall.Kill(-j.pid, syscall.SIGKILL)
	default:
		exited := make(chan error, 1)
		go func() {
			<-j.exited
			exited <- nil
		}()
		shellKillGroup(j.pid, exited)
	}
	// A process that left the group may still hold the pipe: stop
	// reading rather than wait for it.
	select {
	case <-j.done:
	case <-time.After(shellDrainGrace):
		j.r.Close()
		<-j.done
	}
}

func (m *shellJobs) close() error {
	m.mu.Lock()
	m.closed = true
	jobs := slices.Clone(m.jobs)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(j.kill)
	}
	wg.Wait()
	return nil
}
