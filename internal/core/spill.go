package core

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/chat"
)

// spillName is the file, in the session's directory, that holds the full
// text of every tool result context recovery cut, one after the other.
const spillName = "tool-results.txt"

// spillFile saves the full text of tool results that context recovery
// cut, appended to one file in the session's directory, which read_file
// and grep_search may read for this session (it is removed with the
// session). Each text follows a header line naming its result, and ends
// with a newline, so that the lines a cut's note names hold it alone.
//
// A file of its own for each cut cost a file creation a round once cuts
// begin (half a millisecond on this machine); an append costs one write.
// Each text is written with one write call before its cut enters the
// history, so a transcript that names its lines can read them after the
// process is killed, as with a file of its own. One spillFile serves a
// session and its subagents: the line count it keeps is the file's.
type spillFile struct {
	path string

	mu    sync.Mutex
	f     *os.File
	lines int  // lines the file holds
	open  bool // the file ends in a line without its newline
	saved map[string]chat.Saved
}

func newSpillFile(dir string) *spillFile {
	return &spillFile{path: filepath.Join(dir, spillName)}
}

// Save appends text as the result name to the file and says which of its
// lines hold it. The same name saved again is not written twice.
func (s *spillFile) Save(_ context.Context, name, text string) (chat.Saved, error) {
	if name == "" || strings.ContainsAny(name, "\n\r") {
		return chat.Saved{}, fmt.Errorf("saving a cut tool result: bad name %q", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if at, ok := s.saved[name]; ok {
		return at, nil
	}
	if err := s.openLocked(); err != nil {
		return chat.Saved{}, fmt.Errorf("saving a cut tool result: %w", err)
	}
	var b bytes.Buffer
	b.Grow(len(text) + len(name) + 32)
	if s.open {
		b.WriteByte('\n') // the end of a line torn by a crash
	}
	b.WriteString("=== " + name + " ===\n")
	b.WriteString(text)
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
		n++
	}
	first := s.lines + 2 // after the header line
	if _, err := s.f.Write(b.Bytes()); err != nil {
		// What was written of it is unknown: count the file again next
		// time.
		s.f.Close()
		s.f = nil
		return chat.Saved{}, fmt.Errorf("saving a cut tool result: %w", err)
	}
	s.lines, s.open = first-1+n, false
	at := chat.Saved{Path: s.path, Line: first, Lines: n}
	if s.saved == nil {
		s.saved = map[string]chat.Saved{}
	}
	s.saved[name] = at
	return at, nil
}

// openLocked opens the file for appending and counts the lines it holds
// already (a resumed session's).
func (s *spillFile) openLocked() error {
	if s.f != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	lines, open, err := countLines(f)
	if err != nil {
		f.Close()
		return err
	}
	s.f, s.lines, s.open = f, lines, open
	return nil
}

// countLines counts r's lines, and reports whether the last lacks its
// newline.
func countLines(r io.Reader) (lines int, open bool, err error) {
	buf := make([]byte, 64<<10)
	var last byte = '\n'
	for {
		n, err := r.Read(buf)
		if n > 0 {
			lines += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false, err
		}
	}
	if last != '\n' {
		return lines + 1, true, nil
	}
	return lines, false, nil
}

// Close closes the file.
func (s *spillFile) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
