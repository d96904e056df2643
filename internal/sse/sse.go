// Package sse parses a Server-Sent Events stream (the WHATWG "event stream"
// format) as LLM providers send it: data lines carrying JSON, blank lines
// ending each event, comments used as keep-alives.
//
// The parser follows the specification's rules where they matter for a
// client that never reconnects:
//
//   - lines end in CRLF, LF or a lone CR, and the three may be mixed, even
//     with a CRLF split across two reads;
//   - one UTF-8 byte order mark at the very start of the stream is dropped;
//   - a line starting with ':' is a comment and is ignored;
//   - "field: value" loses exactly one space after the colon; a line with no
//     colon is a field with an empty value;
//   - several data lines of one event are joined with "\n";
//   - an event without any data line is not dispatched; "id" persists from
//     event to event (the spec's "last event ID"); "retry" is ignored;
//   - an event not ended by a blank line before the stream ends is
//     discarded, because it may have been cut short.
//
// It is written for throughput: lines are found with bytes.IndexByte, data
// is handed out as a slice of the read buffer whenever possible, and
// repeated event names and ids do not allocate. An event's Data is valid
// only until the next call to Next (or the next iteration of Events);
// callers that keep it must copy it.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
)

// Event is one dispatched event.
type Event struct {
	// Name is the value of the event's "event" field, or "" when it had
	// none (the specification calls that type "message").
	Name string
	// Data is the event's data lines joined with "\n". It aliases the
	// Reader's buffers and is valid only until the next call to Next.
	Data []byte
	// ID is the last "id" field seen in the stream so far, as the
	// specification's last event ID.
	ID string
}

// DefaultMaxEventSize caps a single line and a single event's data. SSE has
// no length limit of its own, and a provider may put a whole large tool
// argument in one line, so the cap only guards against a runaway stream.
const DefaultMaxEventSize = 16 << 20

// ErrTooLarge is returned (wrapped) when a line or an event's data exceeds
// the Reader's maximum size.
var ErrTooLarge = errors.New("sse: event too large")

const (
	initialBufSize = 32 << 10
	maxEmptyReads  = 100
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader reads events from an underlying io.Reader. It is not safe for
// concurrent use.
type Reader struct {
	src io.Reader
	max int

	buf      []byte
	pos, end int   // unread bytes are buf[pos:end]
	readErr  error // error from src, reported once buffered lines are used up
	err      error // sticky error returned by Next
	skipLF   bool  // the last line ended in CR: a LF that follows belongs to it
	started  bool  // the BOM check has run
	empties  int   // consecutive reads returning nothing
	lfAt     int   // absolute index of the next LF at or after pos, if >= pos
	lfScanTo int   // buf[pos:lfScanTo] is known to hold no LF
	noEndTo  int   // buf[pos:noEndTo] is known to hold no CR or LF
	lineEnd  int   // absolute end of the line scan last returned

	// The event being assembled. While dataInBuf is set the data is the
	// single line buf[dataOff:dataOff+dataLen], not yet copied; any move of
	// the buffer copies it into data first.
	hasData   bool
	dataInBuf bool
	dataOff   int
	dataLen   int
	data      []byte
	name      string // event type buffer
	lastName  string // the last distinct name, reused to avoid allocating
	id        string
}

// NewReader returns a Reader of src with DefaultMaxEventSize.
func NewReader(src io.Reader) *Reader {
	return &Reader{src: src, max: DefaultMaxEventSize, lfAt: -1}
}

// SetMaxEventSize sets the largest line, and the largest event data, the
// Reader accepts. n <= 0 restores the default. It must be called before the
// first Next.
func (r *Reader) SetMaxEventSize(n int) {
	if n <= 0 {
		n = DefaultMaxEventSize
	}
	r.max = n
}

// Events returns an iterator over the remaining events. It ends quietly at
// the end of the stream; any other error is yielded once, with a zero
// Event, and ends the iteration.
func (r *Reader) Events() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := r.Next()
			if err != nil {
				// Sticky: the buffer is never read again.
				r.release()
			}
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// an error of the underlying reader is returned as is (so errors.Is works on
// it), and every error is returned again by later calls.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, err := r.line()
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := r.field(line); err != nil {
			r.err = err
			return Event{}, err
		}
	}
}

// dispatch ends the pending event at a blank line.
func (r *Reader) dispatch() (Event, bool) {
	name := r.name
	r.name = ""
	if !r.hasData {
		return Event{}, false
	}
	r.hasData = false
	ev := Event{Name: name, ID: r.id}
	if r.dataInBuf {
		r.dataInBuf = false
		ev.Data = r.buf[r.dataOff : r.dataOff+r.dataLen : r.dataOff+r.dataLen]
	} else {
		ev.Data = r.data
	}
	return ev, true
}

// field interprets one non-empty line. line aliases buf.
func (r *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil
	}
	var name, value []byte
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	} else {
		name = line
	}
	switch string(name) {
	case "data":
		return r.appendData(value)
	case "event":
		if string(value) != r.lastName {
			r.lastName = string(value)
		}
		r.name = r.lastName
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.id {
			r.id = string(value)
		}
	}
	return nil
}

func (r *Reader) appendData(value []byte) error {
	if !r.hasData {
		// The common case, one data line per event: remember where it is
		// instead of copying it.
		r.hasData, r.dataInBuf = true, true
		// value is a suffix of the line scan just returned.
		r.dataOff = r.lineEnd - len(value)
		r.dataLen = len(value)
		return nil
	}
	r.spillData()
	if len(r.data)+1+len(value) > r.max {
		return fmt.Errorf("%w: data exceeds %d bytes", ErrTooLarge, r.max)
	}
	r.data = append(r.data, '\n')
	r.data = append(r.data, value...)
	return nil
}

// spillData copies pending data that still lives in buf into r.data, before
// buf is moved or the data extended.
func (r *Reader) spillData() {
	if !r.dataInBuf {
		return
	}
	r.dataInBuf = false
	r.data = append(r.data[:0], r.buf[r.dataOff:r.dataOff+r.dataLen]...)
}

// line returns the next line without its terminator. It aliases buf and is
// valid until the buffer is next filled.
func (r *Reader) line() ([]byte, error) {
	for {
		if !r.started && !r.checkBOM() {
			if err := r.fill(); err != nil {
				return nil, err
			}
			continue
		}
		if r.skipLF && r.pos < r.end {
			r.skipLF = false
			if r.buf[r.pos] == '\n' {
				r.pos++
			}
		}
		if r.pos < r.end && !r.skipLF {
			if line, ok, err := r.scan(); ok || err != nil {
				return line, err
			}
		}
		if r.readErr != nil {
			// Whatever is left is an unterminated line: the event it
			// belongs to never ended and is dropped.
			return nil, r.readErr
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// checkBOM drops a BOM at the start of the stream. It reports false when it
// needs more input to decide.
func (r *Reader) checkBOM() bool {
	b := r.buf[r.pos:r.end]
	n := min(len(b), len(bom))
	if !bytes.Equal(b[:n], bom[:n]) {
		r.started = true
		return true
	}
	if n == len(bom) {
		r.pos += len(bom)
		r.started = true
		return true
	}
	if r.readErr != nil {
		r.started = true
		return true
	}
	return false
}

// scan looks for a complete line in buf[pos:end]. It never rescans bytes
// already known to hold no line end, so a long line arriving in many small
// reads costs linear time.
func (r *Reader) scan() ([]byte, bool, error) {
	b := r.buf[r.pos:r.end]
	lf := r.nextLF()
	limit := r.end
	if lf >= 0 {
		limit = lf
	}
	// A lone CR ends a line too; it can only come before the next LF.
	from := max(r.pos, r.noEndTo)
	if i := bytes.IndexByte(r.buf[from:limit], '\r'); i >= 0 {
		cr := from + i - r.pos
		line := b[:cr:cr]
		r.lineEnd = r.pos + cr
		switch {
		case cr+1 == len(b):
			r.pos += cr + 1
			r.skipLF = true
		case b[cr+1] == '\n':
			r.pos += cr + 2
		default:
			r.pos += cr + 1
		}
		return r.checkLine(line)
	}
	if lf >= 0 {
		n := lf - r.pos
		r.lineEnd = lf
		r.pos = lf + 1
		return r.checkLine(b[:n:n])
	}
	r.noEndTo = r.end
	if len(b) > r.max {
		return nil, false, fmt.Errorf("%w: line exceeds %d bytes", ErrTooLarge, r.max)
	}
	return nil, false, nil
}

func (r *Reader) checkLine(line []byte) ([]byte, bool, error) {
	if len(line) > r.max {
		return nil, false, fmt.Errorf("%w: line exceeds %d bytes", ErrTooLarge, r.max)
	}
	return line, true, nil
}

// nextLF returns the absolute index of the next LF at or after pos, or -1.
// It remembers what it scanned so that a stream of CR-only lines is not
// rescanned from every line start.
func (r *Reader) nextLF() int {
	if r.lfAt >= r.pos {
		return r.lfAt
	}
	from := max(r.pos, r.lfScanTo)
	i := bytes.IndexByte(r.buf[from:r.end], '\n')
	if i < 0 {
		r.lfScanTo = r.end
		return -1
	}
	r.lfAt = from + i
	return r.lfAt
}

// bufs holds buffers of initialBufSize for reuse: a stream a round would
// otherwise read through fresh memory, which the process faults in page
// by page.
var bufs = sync.Pool{New: func() any { b := make([]byte, initialBufSize); return &b }}

// release gives the buffer back to bufs once the Reader has ended with an
// error (io.EOF included), which Next returns from then on without
// reading. A buffer a long line grew is left to the collector.
func (r *Reader) release() {
	if len(r.buf) == initialBufSize {
		b := r.buf
		bufs.Put(&b)
	}
	r.buf = nil
}

// fill reads more input, making room first. A read error is kept in readErr
// and reported by line once the buffered lines are used up; fill itself only
// fails when the buffer cannot grow.
func (r *Reader) fill() error {
	if r.buf == nil {
		if r.max+1 >= initialBufSize {
			r.buf = *bufs.Get().(*[]byte)
		} else {
			r.buf = make([]byte, r.max+1)
		}
	}
	if r.pos > 0 {
		r.spillData()
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.lfAt -= r.pos
		r.lfScanTo -= r.pos
		r.noEndTo -= r.pos
		r.end = n
		r.pos = 0
	}
	if r.end == len(r.buf) {
		// A line longer than the buffer: grow, up to one byte past the
		// limit so that an over-long line is always seen as such.
		limit := r.max + 1
		if len(r.buf) >= limit {
			return fmt.Errorf("%w: line exceeds %d bytes", ErrTooLarge, r.max)
		}
		nb := make([]byte, min(2*len(r.buf), limit))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	n, err := r.src.Read(r.buf[r.end:])
	if n < 0 || n > len(r.buf)-r.end {
		return errors.New("sse: reader returned an invalid count")
	}
	r.end += n
	if err != nil {
		r.readErr = err
		return nil
	}
	if n == 0 {
		r.empties++
		if r.empties >= maxEmptyReads {
			r.readErr = io.ErrNoProgress
		}
		return nil
	}
	r.empties = 0
	return nil
}
