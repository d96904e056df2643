package tools

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/procgroup"
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
	// Output is the end of the job's combined output so far, at most
	// 16000 bytes.
	Output string
}

// shellEndLines is how many last lines of output SetOnJobEnd's callback
// gets.
const shellEndLines = 5

// shellMaxFinishedJobs bounds how many finished jobs stay listed, so that
// a long session does not keep every old output.
const shellMaxFinishedJobs = 20

// shellJobs tracks the background jobs of one Shell.
type shellJobs struct {
	mu     sync.Mutex
	next   int
	jobs   []*shellJob // in start order
	closed bool
	onEnd  func(TaskInfo) // see Shell.SetOnJobEnd
	// watchers counts the jobs' watching goroutines, so that close
	// returns only once every onEnd call has.
	watchers sync.WaitGroup
}

type shellJob struct {
	id, command, dir string
	pid              int
	started          time.Time
	out              *jobOutput
	r                *os.File
	exited           chan struct{} // closed when the leader is reaped
	done             chan struct{} // closed when the output is drained too
	// Guarded by shellJobs.mu:
	state   *os.ProcessState
	stopped bool  // task_stop or the user stopped it
	read    int64 // offset of the output the model has read up to
}

// start starts cmd with start as a job; cleanup runs once the job is
// done, or at once if it does not start.
// outputDir, when not "", receives a file that keeps the job's whole
// output.
func (m *shellJobs) start(cmd *exec.Cmd, start func() error, r *os.File, command, dir, outputDir string, cleanup func()) (*shellJob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		cleanup()
		return nil, errors.New("the shell tool is closed")
	}
	id := fmt.Sprintf("bg-%d", m.next+1)
	var file *os.File
	if outputDir != "" {
		f, err := shellOutputFile(outputDir, id)()
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("create the file for its output: %w", err)
		}
		file = f
	}
	err := start()
	if err == nil {
		err = started(cmd)
	}
	if err != nil {
		cleanup()
		if file != nil {
			file.Close()
			os.Remove(file.Name())
		}
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	m.next++
	j := &shellJob{
		id: id, command: command, dir: dir,
		pid: cmd.Process.Pid, started: time.Now(),
		out: newJobOutput(shellJobRing, file), r: r,
		exited: make(chan struct{}), done: make(chan struct{}),
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_, _ = io.Copy(j.out, r) // ends when r fails: EOF, or closed by kill
	}()
	m.watchers.Add(1)
	go func() {
		defer m.watchers.Done()
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
		j.out.close()
		cleanup()
		procgroup.Done(j.pid)
		close(j.done)
		m.mu.Lock()
		onEnd := m.onEnd
		m.mu.Unlock()
		if onEnd != nil {
			onEnd(shellTask{m, j}.Info(shellEndLines))
		}
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
			Running: j.state == nil, ExitCode: code, Signal: sig, Output: jobText(j.out.tail(shellMaxOutput)),
		})
	}
	return out
}

func (m *shellJobs) find(id string) *shellJob {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, j := range m.jobs {
		if j.id == id {
			return j
		}
	}
	return nil
}

func (m *shellJobs) kill(id string) error {
	job := m.find(id)
	if job == nil {
		return fmt.Errorf("no background job %q", id)
	}
	m.stop(job)
	return nil
}

// stop ends j as asked by the model or the user. A job is running until
// its output ends: processes its command left behind are still the job.
func (m *shellJobs) stop(j *shellJob) error {
	if j.finished() {
		return ErrTaskNotRunning
	}
	m.mu.Lock()
	j.stopped = true
	m.mu.Unlock()
	j.kill()
	return nil
}

// status says how j goes or how it ended.
func (m *shellJobs) status(j *shellJob) (running bool, status string) {
	done := j.finished()
	m.mu.Lock()
	defer m.mu.Unlock()
	if j.state == nil {
		return true, "running"
	}
	code, sig := shellExitStatus(j.state)
	status = fmt.Sprintf("exit code %d", code)
	if sig != "" {
		status = "killed by " + sig
	}
	if j.stopped {
		status = "stopped (" + status + ")"
	}
	if !done {
		return true, "running (the command ended with " + status + "; processes it started still hold its output)"
	}
	return false, status
}

// kill ends the job's process group and waits until the job is done.
func (j *shellJob) kill() {
	select {
	case <-j.exited:
		// The leader is gone; members may still be alive.
		procgroup.Kill(j.pid)
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
	m.watchers.Wait()
	return nil
}
