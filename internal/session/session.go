// Package session stores conversation transcripts so that a session is
// never lost: one append-only JSONL file per session under
// <home>/projects/<project-hash>/<session-id>.jsonl, where home is ply's
// state directory ($PLY_HOME, ~/.ply by default) as the caller passes it.
//
// It owns the file format, writing it without holding up the caller,
// reading it back (tolerating a torn last line, garbled lines and record
// types it does not know), making a torn file appendable again, and
// listing a workspace's sessions cheaply.
//
// It must not touch the terminal or the network, and it does not decide
// how to resume: it hands back the history as it was saved, and package
// repair (with Options{SkipTrailing: true}) and package resume (Classify)
// turn that into what to send next.
//
// # Format
//
// The first line is the metadata record:
//
//	{"type":"session","version":2,"id":"…","cwd":"/abs/root","created":"…","model":"…"}
//
// Every further line is one record, tagged by "type":
//
//	entry       a history entry when it became final: {"type":"entry","message":{…},"seq":N,"time":"…"}
//	tool_state  a tool call changed state: call_id, name, state, error_type, detail
//	compaction  compression changed the history: "base" and "ops" say how (compact.go);
//	            in a version 1 file, "history" holds the replacement
//	cancelled   the user cancelled: reason
//	background  a background task changed state: task, kind, label, state
//	round       the next entry is a round no user typed: send, source
//	prompt      facts the model was told, the first those of the system prompt: facts
//	unsaved     writes failed from here on: lost (lines not written), error
//	schedule    a schedule was created, fired once, deleted or dropped: schedule, kind, spec, every, cron, text, recurring, state
//
// Appending returns at once; a goroutine writes the lines. Written waits
// until they are in the file, where a killed process leaves them, and Sync
// until they are on disk (fsync), which is what survives the machine.
//
// Loading replays the lines in order; a compaction line replaces the
// history rebuilt so far by the one it describes, built from it. Each line
// is written with a single write call, so a crash leaves at most the last
// line torn.
package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Version is the format version this package writes: 2 since compaction
// lines hold changes, not the whole history. Readers accept older
// versions; a newer one loads with a warning (unknown record types
// are skipped) but is not appended to.
const Version = 2

// Record types.
const (
	typeSession    = "session"
	typeEntry      = "entry"
	typeToolState  = "tool_state"
	typeCompaction = "compaction"
	typeCancelled  = "cancelled"
	typeTodos      = "todos"
)

const ext = ".jsonl"

var (
	// ErrNotFound is returned by Latest and Find when no session matches.
	ErrNotFound = errors.New("session not found")
	// ErrAmbiguous is returned by Find when an id prefix matches more
	// than one session.
	ErrAmbiguous = errors.New("session id prefix is ambiguous")
	// ErrClosed is returned by Sync and Close on a closed Writer.
	ErrClosed = errors.New("session writer closed")
)

// Meta is the first line of a transcript.
type Meta struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Cwd     string    `json:"cwd"` // absolute workspace root
	Created time.Time `json:"created"`
	Model   string    `json:"model"`
	// ForkedFrom is the id of the session this one was copied from
	// (--fork-session), or empty.
	ForkedFrom string `json:"forked_from,omitempty"`
	// Worktree is the git worktree the session works in (ply
	// --worktree), nil for none; Cwd is its path.
	Worktree *Worktree `json:"worktree,omitempty"`
}

// Worktree names the git worktree a session works in.
type Worktree struct {
	Name   string `json:"name"`
	Branch string `json:"branch"`
	// Repo is the repository's main work tree.
	Repo string `json:"repo"`
}

// ToolState is one state change of a tool call, as the caller reports it
// (the scheduler's states: validating, awaiting_approval, scheduled,
// executing, success, error, cancelled). The call itself and its result
// live in the history; these lines say how far a call got, which the
// history alone cannot tell after a crash mid-execution.
type ToolState struct {
	Time      time.Time `json:"time"`
	CallID    string    `json:"call_id"`
	Name      string    `json:"name"`
	State     string    `json:"state"`
	ErrorType string    `json:"error_type,omitempty"`
	Detail    string    `json:"detail,omitempty"`

	// Seq is the seq of the last entry written before this line. It is
	// filled in on load, not stored.
	Seq int64 `json:"-"`
}

// Cancel is a cancellation by the user.
type Cancel struct {
	Time   time.Time
	Reason string
	// Seq is the seq of the last entry written before the cancellation.
	Seq int64
}

// Warning is a line Load skipped, or something odd it tolerated.
type Warning struct {
	Path string
	Line int // 1-based
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Msg) }

// ProjectDir returns the directory holding the sessions of workspace:
// <home>/projects/<hash>, the hash being the first 16 hex digits of the
// SHA-256 of the workspace root's absolute path with symbolic links
// resolved, so that a root reached through a symlink finds the same
// sessions.
func ProjectDir(home, workspace string) (string, error) {
	root, err := canonicalRoot(workspace)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "projects", projectHash(root)), nil
}

func canonicalRoot(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("session: resolve workspace %q: %w", workspace, err)
	}
	// A workspace that cannot be resolved (removed, no permission) still
	// has a stable name: its absolute path.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

func projectHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// validID reports whether id is safe as a file name on every platform:
// letters, digits, '-', '_' and '.', not starting with '.'. Ids are
// generated (UUIDs), so refusing anything else costs nothing and keeps a
// crafted id from escaping the directory.
func validID(id string) bool {
	if id == "" || id[0] == '.' || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// Create starts a new session file for workspace under home, with the
// metadata line written, and returns a Writer appending to it. The project
// directory is created with mode 0700 and the file with 0600: transcripts
// hold everything the user and the tools said. It fails if a session with
// that id exists. The Writer holds the session's lock until Close.
func Create(home, workspace, id, model string) (*Writer, error) {
	return CreateIn(home, workspace, id, model, nil)
}

// CreateIn is Create for a session working in the git worktree wt (nil
// for none), which its metadata line records.
func CreateIn(home, workspace, id, model string, wt *Worktree) (*Writer, error) {
	root, err := canonicalRoot(workspace)
	if err != nil {
		return nil, err
	}
	meta := Meta{Version: Version, ID: id, Cwd: root, Created: time.Now().UTC(), Model: model, Worktree: wt}
	f, lock, err := create(home, meta)
	if err != nil {
		return nil, err
	}
	return newWriter(f, lock, meta, 0, true), nil
}

// create makes the locked, new transcript of meta.ID with its metadata
// line written.
func create(home string, meta Meta) (f, lock *os.File, err error) {
	if !validID(meta.ID) {
		return nil, nil, fmt.Errorf("session: create: invalid session id %q", meta.ID)
	}
	dir := filepath.Join(home, "projects", projectHash(meta.Cwd))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("session: create directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, meta.ID+ext)
	line, err := encodeLine(struct {
		Type string `json:"type"`
		Meta
	}{typeSession, meta})
	if err != nil {
		return nil, nil, fmt.Errorf("session: create %s: encode metadata: %w", path, err)
	}
	if lock, err = acquire(path, meta.ID); err != nil {
		return nil, nil, err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		release(lock)
		return nil, nil, fmt.Errorf("session: create %s: %w", path, err)
	}
	// The metadata line is written here, synchronously, so that a file
	// that exists always starts with it; it is not fsynced until the
	// caller's first Sync, which also makes the new directory entry
	// durable.
	if _, err := f.Write(line); err != nil {
		f.Close()
		os.Remove(path)
		release(lock)
		return nil, nil, fmt.Errorf("session: create %s: write metadata: %w", path, err)
	}
	return f, lock, nil
}

// Open loads the session at path and returns a Writer appending to it,
// together with what was loaded. A torn last line (one a crash cut short)
// is truncated away first, so the next line does not glue onto it; a last
// line that is complete but lacks its newline gets one. Nothing else in
// the file is changed: garbled lines in the middle stay, skipped with a
// warning on every load.
//
// Open refuses a file written by a newer format version, whose lines this
// version might not keep consistent.
//
// The Writer holds the session's lock until Close. A session another
// process holds is refused with a *HeldError before anything is read: its
// last line may be one that process is writing.
func Open(path string) (_ *Writer, _ *Transcript, err error) {
	lock, err := acquire(path, strings.TrimSuffix(filepath.Base(path), ext))
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			release(lock)
		}
	}()
	t, tail, err := load(path)
	if err != nil {
		return nil, nil, err
	}
	if t.Meta.Version > Version {
		return nil, nil, fmt.Errorf("session: open %s: format version %d is newer than %d: not appending", path, t.Meta.Version, Version)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("session: open %s for appending: %w", path, err)
	}
	if err := fixTail(f, tail); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("session: open %s: repair torn tail: %w", path, err)
	}
	w := newWriter(f, lock, t.Meta, t.lastSeq, false)
	w.setMirror(t.writerHistory())
	return w, t, nil
}

// fixTail makes the end of the file a line boundary again. It runs before
// the writer goroutine starts, so nothing else writes to f.
func fixTail(f *os.File, tail tailState) error {
	switch {
	case tail.torn:
		// O_APPEND writes go to the end of file, which after this is the
		// end of the last good line.
		if err := f.Truncate(tail.goodEnd); err != nil {
			return err
		}
	case tail.noNewline:
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return err
		}
	default:
		return nil
	}
	// Make the repair durable before anything is appended after it: a
	// crash must not resurrect the torn bytes under new lines.
	return f.Sync()
}
