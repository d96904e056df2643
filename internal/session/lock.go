package session

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// One writer per session.
//
// Two processes appending to one transcript would interleave two
// conversations in it, and Open's repair of a torn last line would cut a
// line the other process is still writing. So a transcript is written
// only under an exclusive lock on its sidecar file <id>.lock, which holds
// the holder's pid for the message a refused process prints. The lock is
// advisory (flock) and belongs to the open file: the kernel drops it when
// the holder exits or dies, so a crash never leaves a session stuck, and
// the file is never removed (removing it would let a second process lock a
// new file while the first still holds the old one).

const lockExt = ".lock"

// HeldError is returned by Open (and Create) when another process holds
// the session.
type HeldError struct {
	ID   string // the session's id
	PID  int    // the holder's process id; 0 if it has not written it yet
	Path string // the transcript
}

func (e *HeldError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "another process (pid " + strconv.Itoa(e.PID) + ")"
	}
	return fmt.Sprintf("session %s is in use by %s: only one process may write a session at a time", e.ID, who)
}

// lockPath returns the lock file of the transcript at path.
func lockPath(path string) string { return strings.TrimSuffix(path, ext) + lockExt }

// acquire takes the session lock of the transcript at path, without
// waiting, and records this process's pid in it.
func acquire(path, id string) (*os.File, error) {
	lp := lockPath(path)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: lock %s: %w", lp, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("session: lock %s: %w", lp, err)
	}
	if held {
		pid := readPID(f)
		f.Close()
		return nil, &HeldError{ID: id, PID: pid, Path: path}
	}
	// Best effort: the pid is for the message, the lock is what counts.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// release drops the lock by closing its file; nil is a no-op.
func release(f *os.File) {
	if f != nil {
		f.Close()
	}
}
