package session

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Fork starts a new session id for workspace under home holding a copy of
// the session at src, and returns a Writer appending to the copy together
// with the copy as loaded. The source is only read, so it may be held by
// another process meanwhile: a line that process is writing is left out.
// The copy's metadata names the source in ForkedFrom; every other line is
// copied as it is, so the copy resumes exactly where the source stood.
func Fork(home, workspace, src, id, model string) (_ *Writer, _ *Transcript, err error) {
	t, tail, err := load(src)
	if err != nil {
		return nil, nil, err
	}
	if t.Meta.Version > Version {
		return nil, nil, fmt.Errorf("session: fork %s: format version %d is newer than %d", src, t.Meta.Version, Version)
	}
	root, err := canonicalRoot(workspace)
	if err != nil {
		return nil, nil, err
	}
	meta := Meta{Version: Version, ID: id, Cwd: root, Created: time.Now().UTC(), Model: model, ForkedFrom: t.Meta.ID, Worktree: t.Meta.Worktree}
	f, lock, err := create(home, meta)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			release(lock)
		}
	}()
	if err := copyRecords(f, src, tail); err != nil {
		return nil, nil, fmt.Errorf("session: fork %s: %w", src, err)
	}
	t.Path, t.Meta = f.Name(), meta
	w := newWriter(f, lock, meta, t.lastSeq, true)
	w.setMirror(t.writerHistory())
	return w, t, nil
}

// copyRecords appends to dst the lines of src after its metadata line, as
// load saw them: without a torn last line, with a newline after the last.
func copyRecords(dst *os.File, src string, tail tailState) error {
	end := tail.end
	if tail.torn {
		end = tail.goodEnd
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if _, err := io.Copy(dst, io.NewSectionReader(in, tail.metaEnd, end-tail.metaEnd)); err != nil {
		return err
	}
	if tail.noNewline && !tail.torn && end > tail.metaEnd {
		_, err = dst.Write([]byte{'\n'})
	}
	return err
}

// Discard closes w and removes its transcript and lock file: for a
// session that turned out to have nothing worth keeping, such as a fork
// nothing was added to. Only the creator of a session, which no one else
// knows yet, may discard it.
func Discard(w *Writer) error {
	err := w.Close()
	if rerr := os.Remove(w.Path()); err == nil {
		err = rerr
	}
	os.Remove(lockPath(w.Path()))
	return err
}
