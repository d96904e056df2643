package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// typeUnsaved marks where a transcript's writes started failing: the lines
// after it were never written.
const typeUnsaved = "unsaved"

// unsaved is what a Writer knows of the lines it could not write. Only
// the writer goroutine touches it.
type unsaved struct {
	end    int64 // where the last line written whole ends
	lost   int   // lines not written, the failed one included
	err    error // the first write's failure
	marked int   // lost as the marker on disk says it; 0: no marker
	marker []byte
}

// wrote accounts for a line's write, of which n bytes reached the file
// before err.
func (w *Writer) wrote(n int64, err error) {
	if err == nil {
		w.unsaved.end += n
		return
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err // the path is said once, here
	}
	w.setErr(fmt.Errorf("session: write %s: %w", w.path, err))
	w.unsaved.err = err
	w.unsaved.lost = 1
	w.markUnsaved()
}

// markUnsaved replaces what a failed write left after the last whole line
// with a record saying how many lines are missing and why, so that a
// resume can say so instead of taking the cut for a crash. Cutting the
// torn bytes first frees the room they took, which is usually room enough
// for the record on a full disk. When the record does not fit either, the
// file ends at its last whole line, or with a torn line Load reports.
func (w *Writer) markUnsaved() {
	u := &w.unsaved
	if u.err == nil || u.lost == u.marked {
		return
	}
	line, err := encodeLine(struct {
		Type  string    `json:"type"`
		Time  time.Time `json:"time"`
		Lost  int       `json:"lost"`
		Error string    `json:"error"`
	}{typeUnsaved, time.Now().UTC(), u.lost, u.err.Error()})
	if err != nil || w.f.Truncate(u.end) != nil {
		return
	}
	if _, err := w.f.Write(line); err != nil {
		// The previous marker fit where the new one was written.
		if w.f.Truncate(u.end) == nil && u.marker != nil {
			w.f.Write(u.marker)
		}
		return
	}
	u.marked, u.marker = u.lost, line
	_ = w.fsync()
}

// fileEnd is the size of f, where its writer's first line goes.
func fileEnd(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeFault is the wrapper SetWriteFault installed, if any.
var writeFault atomic.Pointer[func(path string, f io.Writer) io.Writer]

// SetWriteFault makes every Writer made from now on write its lines
// through wrap(path, file) instead of the file itself, until restore is
// called. It exists for tests outside this package, which wrap the file in
// a writer that fails as a full disk does (syscall.ENOSPC) to see how a
// session that cannot be saved is reported; wrap must pass through the
// writes of files the test does not own.
func SetWriteFault(wrap func(path string, f io.Writer) io.Writer) (restore func()) {
	writeFault.Store(&wrap)
	return func() { writeFault.Store(nil) }
}

func wrapFile(f *os.File) io.Writer {
	if wrap := writeFault.Load(); wrap != nil {
		return (*wrap)(f.Name(), f)
	}
	return f
}
