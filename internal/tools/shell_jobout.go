package tools

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// shellJobRing is how many of a background job's latest output bytes are
// kept in memory; the file keeps the rest.
const shellJobRing = 64 << 10

// jobOutput keeps a background job's output: its last bytes in a ring of
// fixed size, and, when it has a file, everything (up to shellSavedMax)
// in that file. Positions in the stream are byte offsets from its start,
// so a reader can ask for what came after the last thing it saw.
type jobOutput struct {
	mu      sync.Mutex
	ring    []byte
	start   int   // index of the oldest byte in ring
	n       int   // bytes held in ring
	total   int64 // bytes written since the start
	changed chan struct{}

	file  *os.File
	saved int64
	full  bool  // the file reached shellSavedMax
	err   error // writing the file failed
}

// newJobOutput returns an output that keeps size bytes in memory and
// everything in file, which may be nil.
func newJobOutput(size int, file *os.File) *jobOutput {
	return &jobOutput{ring: make([]byte, max(size, 1)), file: file, changed: make(chan struct{})}
}

// Write keeps p; it never fails, since a job must not stop because its
// output cannot be kept.
func (o *jobOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	written := len(p)
	o.save(p)
	o.total += int64(len(p))
	size := len(o.ring)
	if len(p) >= size {
		copy(o.ring, p[len(p)-size:])
		o.start, o.n = 0, size
	} else {
		w := (o.start + o.n) % size
		k := copy(o.ring[w:], p)
		copy(o.ring, p[k:])
		o.n += len(p)
		if over := o.n - size; over > 0 {
			o.start = (o.start + over) % size
			o.n = size
		}
	}
	if written > 0 {
		close(o.changed)
		o.changed = make(chan struct{})
	}
	return written, nil
}

func (o *jobOutput) save(p []byte) {
	if o.file == nil || o.full || o.err != nil {
		return
	}
	if room := shellSavedMax - o.saved; int64(len(p)) > room {
		p, o.full = p[:room], true
	}
	n, err := o.file.Write(p)
	o.saved += int64(n)
	o.err = err
}

// since returns the bytes after offset off that are still in memory, how
// many bytes after off are not (pushed out of the ring), and the offset
// of the end of the stream.
func (o *jobOutput) since(off int64) (b []byte, lost, end int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	first := o.total - int64(o.n) // offset of the oldest byte held
	off = min(max(off, 0), o.total)
	if off < first {
		lost, off = first-off, first
	}
	skip := int(off - first)
	return o.held(skip), lost, o.total
}

// held returns the ring's bytes from its skip-th on, as a copy.
func (o *jobOutput) held(skip int) []byte {
	out := make([]byte, 0, o.n-skip)
	for i := skip; i < o.n; {
		j := (o.start + i) % len(o.ring)
		k := min(o.n-i, len(o.ring)-j)
		out = append(out, o.ring[j:j+k]...)
		i += k
	}
	return out
}

// tail returns the last n bytes held, at most.
func (o *jobOutput) tail(n int) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.held(o.n - min(n, o.n))
}

// changedAfter returns a channel that is closed once the stream goes past
// offset off: at once when it already has.
func (o *jobOutput) changedAfter(off int64) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.total > off {
		done := make(chan struct{})
		close(done)
		return done
	}
	return o.changed
}

// path returns the name of the file that keeps the whole output, or "".
func (o *jobOutput) path() string {
	if o.file == nil {
		return ""
	}
	return o.file.Name()
}

// fileNote says what the file holds, for the model; "" when there is no
// file.
func (o *jobOutput) fileNote() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.file == nil:
		return ""
	case o.err != nil:
		return "Output file: " + o.file.Name() + " (incomplete: writing it failed: " + o.err.Error() + ")"
	case o.full:
		return "Output file: " + o.file.Name() + " (it keeps only the first " + strconv.Itoa(shellSavedMax) + " bytes)"
	}
	return "Output file: " + o.file.Name()
}

// close closes the file, if there is one.
func (o *jobOutput) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file != nil {
		_ = o.file.Close()
	}
}

// jobText returns b as valid UTF-8 text: the pieces of a character cut
// at its start are dropped, and other invalid bytes replaced.
func jobText(b []byte) string {
	for k := 0; k < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
		b = b[1:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
