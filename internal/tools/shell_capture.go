package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
)

// shellSavedMax bounds the file that keeps a command's whole output: a
// command that prints without end must not fill the disk.
const shellSavedMax = 64 << 20

// shellCapture keeps the start and, larger, the end of a stream within a
// byte cap, counting the characters and lines dropped in between and how
// many of those lines look like errors. It never
// holds more than the cap in memory, however much a command prints. With
// open set, the whole stream (up to shellSavedMax) also goes to a file,
// opened only when the stream first passes the cap.
type shellCapture struct {
	mu      sync.Mutex // a background job's output is read while written
	head    []byte
	headCap int
	ring    []byte // the tail, circular
	start   int    // index of the oldest byte in ring
	n       int    // bytes held in ring
	omitted int    // characters (UTF-8 rune starts) dropped
	lines   int    // newlines dropped
	errs    errLineCounter

	open  func() (*os.File, error)
	file  *os.File
	saved int64 // bytes written to file
	full  bool  // the file reached shellSavedMax
	err   error // opening or writing the file failed
}

// newShellCapture keeps two fifths of limit from the start of a stream
// and three fifths from its end, where a failing command says what went
// wrong.
func newShellCapture(limit int) *shellCapture {
	limit = max(limit, 2) // the ring needs a byte
	head := limit * 2 / 5
	return &shellCapture{headCap: head, ring: make([]byte, limit-head)}
}

// shellOutputFile returns an opener of the file that keeps the whole
// output of call id in dir.
func shellOutputFile(dir, id string) func() (*os.File, error) {
	return func() (*os.File, error) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if id == "" {
			id = "output"
		}
		name := "shell-" + strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r == 0 || r == '.' {
				return '_'
			}
			return r
		}, id) + "-*.txt"
		return os.CreateTemp(dir, name)
	}
}

func (c *shellCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	written := len(p)
	if c.file != nil {
		c.save(p)
	}
	if room := c.headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	size := len(c.ring)
	if c.n+len(p) > size && c.open != nil && c.file == nil && c.err == nil {
		// The stream passes the cap now: what was held is all of it
		// so far, so the file starts complete.
		if c.file, c.err = c.open(); c.err == nil {
			c.save(c.head)
			c.save(c.ringBytes())
			c.save(p)
		}
	}
	if len(p) > size {
		// Everything held and the front of p are dropped.
		c.evict(c.n)
		c.drop(p[:len(p)-size])
		p = p[len(p)-size:]
	}
	if over := c.n + len(p) - size; over > 0 {
		c.evict(over)
	}
	w := (c.start + c.n) % size
	k := copy(c.ring[w:], p)
	copy(c.ring, p[k:])
	c.n += len(p)
	return written, nil
}

// save appends p to the file, up to shellSavedMax.
func (c *shellCapture) save(p []byte) {
	if c.full || c.err != nil {
		return
	}
	if room := shellSavedMax - c.saved; int64(len(p)) > room {
		p, c.full = p[:room], true
	}
	n, err := c.file.Write(p)
	c.saved += int64(n)
	if err != nil {
		c.err = err
	}
}

// close closes the file, if one was opened.
func (c *shellCapture) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file != nil {
		if err := c.file.Close(); err != nil && c.err == nil {
			c.err = err
		}
	}
}

func (c *shellCapture) drop(b []byte) {
	if len(b) == 0 {
		return
	}
	if c.omitted == 0 {
		// The first bytes dropped continue the head's last line, which
		// String leaves out too when the head holds a line end.
		if i := bytes.LastIndexByte(c.head, '\n'); i >= 0 {
			c.errs.write(c.head[i+1:])
		}
	}
	c.omitted += shellRuneStarts(b)
	c.lines += bytes.Count(b, []byte{'\n'})
	c.errs.write(b)
}

// evict drops the k oldest bytes of the ring.
func (c *shellCapture) evict(k int) {
	size := len(c.ring)
	first := min(k, size-c.start)
	c.drop(c.ring[c.start : c.start+first])
	c.drop(c.ring[:k-first])
	c.start = (c.start + k) % size
	c.n -= k
}

// ringBytes returns the ring's bytes in order, as a copy.
func (c *shellCapture) ringBytes() []byte {
	tail := make([]byte, 0, c.n)
	end := c.start + c.n
	if end <= len(c.ring) {
		return append(tail, c.ring[c.start:end]...)
	}
	tail = append(tail, c.ring[c.start:]...)
	return append(tail, c.ring[:end-len(c.ring)]...)
}

// shellLastRuneStart returns the index of the last rune start among the
// final bytes of b, or -1.
func shellLastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return -1
}

func shellRuneStarts(b []byte) int {
	n := 0
	for _, x := range b {
		if x&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// String returns head, a note if anything was dropped, and tail, as valid
// UTF-8. The cuts fall on line ends where the kept parts hold one, so that
// no line is shown in part; the note says how much was left out and how to
// see it.
func (c *shellCapture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.ringBytes()
	head, omitted, lines := c.head, c.omitted, c.lines
	errs := c.errs // a copy: String may be called again as more comes
	var sb strings.Builder
	if omitted > 0 {
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			omitted += shellRuneStarts(head[i+1:])
			head = head[:i+1]
		} else if i := shellLastRuneStart(head); i >= 0 && !utf8.FullRune(head[i:]) {
			// No line end: at least drop a cut character's pieces.
			head = head[:i]
			omitted++
		}
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
			errs.write(tail[:i+1])
			// The ring's leading pieces belong to a character already
			// counted; whole characters after them are counted now.
			j := 0
			for j < len(tail) && !utf8.RuneStart(tail[j]) {
				j++
			}
			omitted += shellRuneStarts(tail[j : i+1])
			lines++
			tail = tail[i+1:]
		}
		for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
			tail = tail[1:]
		}
	}
	sb.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	if omitted > 0 {
		if len(head) > 0 && head[len(head)-1] != '\n' {
			sb.WriteByte('\n')
		}
		sb.WriteString(c.note(omitted, lines, errs.total()))
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	return sb.String()
}

// note is the line that stands for what was left out: how much, where to
// see it, and how many of its lines look like errors.
func (c *shellCapture) note(chars, lines, errs int) string {
	what := fmt.Sprintf("%d characters", chars)
	facts := ""
	if lines > 0 {
		what = fmt.Sprintf("%d lines (%d characters)", lines, chars)
		facts = fmt.Sprintf(" %d of the %d omitted lines %s %s (ignoring case).", errs, lines, pluralOf(errs, "matches", "match"), errWordsShown)
		if errs > 0 && c.file != nil && c.err == nil {
			facts = strings.TrimSuffix(facts, ".") + fmt.Sprintf(": grep_search with pattern %q in the saved file finds them.", "(?i)"+errWordsShown)
		}
	}
	switch {
	case c.file != nil && c.err == nil && !c.full:
		return fmt.Sprintf("[... %s omitted. The whole output (%d bytes) is saved in %s : read it in ranges with read_file (offset, limit) or search it with grep_search.%s ...]",
			what, c.saved, filepath.Clean(c.file.Name()), facts)
	case c.file != nil && c.err == nil:
		return fmt.Sprintf("[... %s omitted. The first %d bytes of the output are saved in %s : read them in ranges with read_file (offset, limit) or search them with grep_search.%s ...]",
			what, c.saved, filepath.Clean(c.file.Name()), facts)
	}
	return fmt.Sprintf("[... %s omitted. To see them, redirect the output to a file and read it in ranges, or filter it (grep, head, tail).%s ...]", what, facts)
}

// errWordsShown names the words errLineCounter looks for, as a regular
// expression.
const errWordsShown = "error|fail|panic"

// errLineCounter counts the lines of a stream that hold "error", "fail"
// or "panic" in any case, fed in pieces of any size; it keeps only the
// last bytes of the current line, so that a word split between two pieces
// still counts.
type errLineCounter struct {
	done  int     // finished lines that matched
	hit   bool    // the current line matched
	carry [4]byte // the current line's last bytes, fewer than a word
	nc    int
}

func (e *errLineCounter) write(b []byte) {
	for len(b) > 0 {
		seg, rest, nl := bytes.Cut(b, []byte{'\n'})
		if !e.hit {
			if e.nc > 0 {
				var join [8]byte
				n := copy(join[:], e.carry[:e.nc])
				n += copy(join[n:], seg[:min(len(seg), 4)])
				e.hit = hasErrWord(join[:n])
			}
			e.hit = e.hit || hasErrWord(seg)
		}
		if nl {
			if e.hit {
				e.done++
			}
			e.hit, e.nc = false, 0
		} else {
			// Keep the last 4 bytes of the line so far.
			all := append(e.carry[:e.nc:e.nc], seg[max(0, len(seg)-4):]...)
			e.nc = copy(e.carry[:], all[max(0, len(all)-4):])
		}
		b = rest
	}
}

// total counts the lines that matched, the unfinished one included.
func (e *errLineCounter) total() int {
	if e.hit {
		return e.done + 1
	}
	return e.done
}

// hasErrWord reports whether b holds error, fail or panic in any case.
func hasErrWord(b []byte) bool {
	for i := 0; i+4 <= len(b); i++ {
		switch b[i] | 0x20 {
		case 'e':
			if i+5 <= len(b) && foldedIs(b[i:i+5], "error") {
				return true
			}
		case 'f':
			if foldedIs(b[i:i+4], "fail") {
				return true
			}
		case 'p':
			if i+5 <= len(b) && foldedIs(b[i:i+5], "panic") {
				return true
			}
		}
	}
	return false
}

// foldedIs reports whether b is the lower-case ASCII word w in any case.
func foldedIs(b []byte, w string) bool {
	for i := range len(w) {
		if b[i]|0x20 != w[i] {
			return false
		}
	}
	return true
}
