package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/bigjson"
	"github.com/plyhq/ply/internal/llm"
)

// Writer appends records to one session file. Its methods are safe for
// concurrent use; lines appear in the file in the order the calls took
// the writer's lock.
//
// Why a goroutine and an unbounded queue: the callers are the chat's
// stream loop (through Chat.OnAppend) and the tool scheduler, and neither
// may wait on a write(2) to a slow disk, let alone an fsync, while text is
// streaming to the terminal. Each Append encodes its record in the
// caller's goroutine, so the caller may change the message right after,
// and queues the bytes under a short lock; one goroutine writes them in
// order. A bounded channel would block the caller exactly when the disk
// stalls, the case this design exists for, and every queued line is a
// copy of something the history holds in memory anyway. Only Sync and
// Close wait for the disk.
//
// Errors are sticky: the first one is kept and returned by Sync, Close and
// Err. After a failed write nothing more is written, because the failed
// write may have left part of a line that a further line would glue onto.
type Writer struct {
	path string
	meta Meta
	f    *os.File
	// lock holds the session's lock file open (see acquire); closing it
	// lets the next process in.
	lock *os.File
	// fsync is f.Sync; tests count and stall it.
	fsync func() error
	// out is where lines are written: f, unless a test wraps it
	// (SetWriteFault). Only the writer goroutine touches it.
	out io.Writer
	// unsaved is what the writer goroutine knows of the lines it could
	// not write (unsaved.go).
	unsaved unsaved
	// dirSync: the file is new and its directory entry is not yet
	// durable. Only the writer goroutine touches it.
	dirSync bool

	mu    sync.Mutex
	queue []item
	seq   int64 // last entry seq handed out
	// mirror is the history replaying the file so far rebuilds, which a
	// compaction line describes its changes against (compact.go).
	mirror []llm.Message
	closed bool
	err    error

	wake chan struct{} // capacity 1: "the queue is not empty"
	done chan struct{} // closed when the goroutine has returned
}

// item is one unit of work for the writer goroutine: a line to write, a
// Sync barrier to answer once everything before it is on disk, or the
// order to stop.
type item struct {
	line []byte
	// parts, instead of line, is a line holding large texts that are
	// escaped as they are written (see encodeEntry).
	parts  bigjson.Pieces
	synced chan error
	// written is answered once everything before it is written to the
	// file, without an fsync (Written).
	written chan error
	stop    bool
}

func newWriter(f, lock *os.File, meta Meta, seq int64, dirSync bool) *Writer {
	w := &Writer{
		path:    f.Name(),
		meta:    meta,
		f:       f,
		lock:    lock,
		fsync:   f.Sync,
		out:     wrapFile(f),
		dirSync: dirSync,
		seq:     seq,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	w.unsaved.end = fileEnd(f)
	go w.run()
	return w
}

// Path returns the file the writer appends to.
func (w *Writer) Path() string { return w.path }

// Meta returns the session's metadata.
func (w *Writer) Meta() Meta { return w.meta }

// Err returns the first error the writer met, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Append records a history entry that became final. It has the signature
// of Chat.OnAppend's callback on purpose. It never waits for the disk;
// a failure shows in the next Sync. After Close it does nothing.
func (w *Writer) Append(m llm.Message) {
	if w.isClosed() {
		return
	}
	// The message goes first so that every entry line starts with the
	// fixed bytes `{"type":"entry","message":{"role":"…"`: List counts
	// turns by that prefix without decoding the line. seq and time are
	// added under the lock, after the (possibly large) message is
	// encoded, so the lock is held only for a few bytes.
	parts, err := encodeEntry(`{"type":"entry","message":`, m)
	if err != nil {
		w.setErr(fmt.Errorf("session: %s: encode entry: %w", w.path, err))
		return
	}
	last := parts.Tail()
	*last = slices.Grow(*last, 64) // so that appending the tail never copies the message under the lock

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.seq++
	w.mirrorAppendLocked(m)
	b := *last
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, w.seq, 10)
	b = append(b, `,"time":"`...)
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, "\"}\n"...)
	*last = b
	if len(parts) == 1 {
		w.enqueueLocked(item{line: b})
		return
	}
	w.enqueueLocked(item{parts: parts})
}

// AppendToolState records a state change of a tool call. A zero Time is
// set to now.
func (w *Writer) AppendToolState(s ToolState) {
	if s.Time.IsZero() {
		s.Time = time.Now().UTC()
	}
	w.appendRecord("tool state", struct {
		Type string `json:"type"`
		ToolState
	}{typeToolState, s})
}

// AppendTodos records the session's task list (todos marshals to a JSON
// array); the last one recorded is the list on resume.
func (w *Writer) AppendTodos(todos any) {
	w.appendRecord("todos", struct {
		Type  string    `json:"type"`
		Time  time.Time `json:"time"`
		Todos any       `json:"todos"`
	}{typeTodos, time.Now().UTC(), todos})
}

// AppendCancelled records that the user cancelled (Ctrl-C, Escape), so
// that a later resume can tell a cancellation from a crash.
func (w *Writer) AppendCancelled(reason string) {
	w.appendRecord("cancellation", struct {
		Type   string    `json:"type"`
		Time   time.Time `json:"time"`
		Reason string    `json:"reason"`
	}{typeCancelled, time.Now().UTC(), reason})
}

func (w *Writer) appendRecord(what string, v any) { w.appendRecordAnd(what, v, nil) }

// appendRecordAnd is appendRecord that also runs also (when not nil)
// under the writer's lock, just before the line is queued.
func (w *Writer) appendRecordAnd(what string, v any, also func()) {
	if w.isClosed() {
		return
	}
	line, err := encodeLine(v)
	if err != nil {
		w.setErr(fmt.Errorf("session: %s: encode %s: %w", w.path, what, err))
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		if also != nil {
			also()
		}
		w.enqueueLocked(item{line: line})
	}
}

// Sync waits until every line appended before it is written and the file
// is fsynced, and returns the writer's first error. The caller calls it
// at round boundaries, where waiting costs nothing visible.
func (w *Writer) Sync() error {
	return w.wait(func(ch chan error) item { return item{synced: ch} })
}

// Written waits until everything appended so far is written to the file
// (handed to the operating system, where a killed process leaves it)
// and returns the writer's first error. Unlike Sync it does not fsync:
// what it wrote survives the process, not the machine, until the next
// Sync or Close.
func (w *Writer) Written() error {
	return w.wait(func(ch chan error) item { return item{written: ch} })
}

// wait queues the marker mark makes behind everything appended so far,
// waits until the writer reaches it, and returns the writer's first
// error.
func (w *Writer) wait(mark func(chan error) item) error {
	ch := make(chan error, 1)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	w.enqueueLocked(mark(ch))
	w.mu.Unlock()
	<-ch
	return w.Err()
}

// Close writes and fsyncs everything appended, stops the writer goroutine
// and closes the file. It returns the writer's first error.
func (w *Writer) Close() error {
	ch := make(chan error, 1)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	w.closed = true
	w.enqueueLocked(item{synced: ch})
	w.enqueueLocked(item{stop: true})
	w.mu.Unlock()
	<-ch
	<-w.done
	if err := w.f.Close(); err != nil {
		w.setErr(fmt.Errorf("session: close %s: %w", w.path, err))
	}
	release(w.lock)
	return w.Err()
}

func (w *Writer) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

func (w *Writer) setErr(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *Writer) enqueueLocked(it item) {
	w.queue = append(w.queue, it)
	select {
	case w.wake <- struct{}{}:
	default: // already signalled; the goroutine will take this item too
	}
}

// run is the writer goroutine. It swaps the queue for an empty one and
// works through what it took, so callers are never blocked behind a
// write in progress. It returns at the stop item Close enqueues last.
func (w *Writer) run() {
	defer close(w.done)
	var batch []item
	var bw *bufio.Writer // for lines with large texts, made at the first
	stopped := false     // a write failed: write nothing more
	for range w.wake {
		w.mu.Lock()
		batch, w.queue = w.queue, batch[:0]
		w.mu.Unlock()
		for i := range batch {
			it := batch[i]
			batch[i] = item{} // let the line be collected
			switch {
			case it.line != nil:
				if stopped {
					w.unsaved.lost++
					continue
				}
				// One write call for the whole line: a crash tears at
				// most this line, never one before it.
				n, err := w.out.Write(it.line)
				w.wrote(int64(n), err)
				stopped = err != nil
			case it.parts != nil:
				if stopped {
					w.unsaved.lost++
					continue
				}
				// Several writes, but nothing else between them: a crash
				// still tears only this line, the file's last.
				if bw == nil {
					bw = bufio.NewWriterSize(w.out, 256<<10)
				}
				cw := countingWriter{w: w.out}
				bw.Reset(&cw)
				err := writeParts(bw, it.parts)
				w.wrote(cw.n, err)
				stopped = err != nil
			case it.synced != nil:
				if !stopped {
					w.flush()
				}
				it.synced <- nil
			case it.written != nil:
				it.written <- nil
			case it.stop:
				if stopped {
					w.markUnsaved()
				}
				return
			}
		}
	}
}

// flush fsyncs the file and, once, its directory.
func (w *Writer) flush() {
	if err := w.fsync(); err != nil {
		// Sticky: after a failed fsync the kernel may have dropped the
		// dirty pages and a retry can report success for lost data.
		w.setErr(fmt.Errorf("session: fsync %s: %w", w.path, err))
		return
	}
	if w.dirSync {
		w.dirSync = false
		// Best effort: the file's directory entry must survive a crash
		// too, but some platforms and file systems refuse to fsync a
		// directory, and the data itself is already durable.
		if d, err := os.Open(filepath.Dir(w.path)); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
}

// encodeTo writes v as JSON plus a newline. HTML escaping is off: code
// is full of <, > and &, and \u003c would bloat every line for nothing.
func encodeTo(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// encodeLine returns v as one JSONL line, newline included.
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeTo(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
