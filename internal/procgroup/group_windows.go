//go:build windows

package procgroup

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no process groups that can be signalled; a job object is
// the tree of processes a command starts. Each command's leader is put in
// a job of its own as soon as it has started, and the job is created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when ply ends, however it ends, the
// system closes the handle and ends every process in the job, which is
// what the guardian does on Linux. A process the leader starts before it
// is assigned to the job (the first instants of its life) is not in it.

var jobs struct {
	sync.Mutex
	byPid map[int]windows.Handle
}

// Prepare makes cmd, which has not started, start in a console process
// group of its own, so that a Ctrl+C typed at ply's console does not
// reach it. Other SysProcAttr fields are kept.
func Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// started puts the process pid, which has just started, in a new job
// object that ends with ply.
func started(pid int) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("set the job object's limits: %w", err)
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("put process %d in its job object: %w", pid, err)
	}
	jobs.Lock()
	defer jobs.Unlock()
	if jobs.byPid == nil {
		jobs.byPid = make(map[int]windows.Handle)
	}
	jobs.byPid[pid] = job
	return nil
}

// Done closes the job of the command led by pid, which ends what is left
// of it.
func Done(pid int) {
	jobs.Lock()
	job, ok := jobs.byPid[pid]
	delete(jobs.byPid, pid)
	jobs.Unlock()
	if ok {
		windows.CloseHandle(job)
	}
}

// Term ends the job at once: Windows has no request to end that reaches
// every console program of a tree.
func Term(pid int) { Kill(pid) }

// Kill ends every process in the job of the command led by pid. A
// command without a job is not running: Started refuses to let one run.
func Kill(pid int) {
	jobs.Lock()
	job, ok := jobs.byPid[pid]
	jobs.Unlock()
	if ok {
		_ = windows.TerminateJobObject(job, 1)
	}
}
