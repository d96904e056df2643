package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// Summary describes a saved session for a picker or for --continue and
// --resume, without loading it.
type Summary struct {
	ID       string
	Path     string
	Model    string
	Created  time.Time
	Modified time.Time // the file's modification time: the last line written
	// Title is the name the user gave it last (/rename), "" for none.
	Title string
	// FirstPrompt is the first text the user wrote, whitespace collapsed
	// and cut to about 80 characters; system reminders are passed over.
	FirstPrompt string
	// Turns is the number of model entries in the file, compacted ones
	// included: how long the session has run, not how long its history is.
	Turns int
}

// promptLen is how many characters of the first prompt a Summary keeps.
const promptLen = 80

// maxPromptEntries bounds how many user entries summarize decodes looking
// for the first prompt, so that a session that has none (only tool
// results and reminders) is not decoded whole.
const maxPromptEntries = 8

// Every entry line starts with these bytes (see Writer.Append), which lets
// summarize tell model from user entries without decoding.
const (
	entryPrefix = `{"type":"entry","message":{"role":"`
	modelPrefix = entryPrefix + string(llm.RoleModel) + `"`
	userPrefix  = entryPrefix + string(llm.RoleUser) + `"`
)

// List returns the sessions of workspace, newest (by modification time)
// first. Files that are not sessions (no valid metadata line) are left
// out. No session directory yet means no sessions, not an error.
//
// Each file is read once without decoding its lines, except the metadata
// line and the first user entries; List is for a session picker and is
// not meant to run at every startup.
func List(home, workspace string) ([]Summary, error) {
	dir, files, err := sessionFiles(home, workspace)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(files))
	for _, f := range files {
		s, err := summarize(filepath.Join(dir, f.name))
		if err != nil {
			continue // not a session, or removed meanwhile
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.Modified.Compare(a.Modified); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Latest returns the most recently modified session of workspace that
// has a prompt, for --continue: a session that never got one (a UI closed
// at once) is passed over, and returned only when there is no other. It
// stats the directory's files and reads them newest first until one
// does. It returns an error wrapping ErrNotFound when there is none.
func Latest(home, workspace string) (Summary, error) {
	dir, files, err := sessionFiles(home, workspace)
	if err != nil {
		return Summary{}, err
	}
	slices.SortFunc(files, func(a, b file) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	var empty *Summary
	for _, f := range files {
		s, err := summarize(filepath.Join(dir, f.name))
		switch {
		case err != nil:
		case s.FirstPrompt != "" || s.Turns > 0:
			return s, nil
		case empty == nil:
			empty = &s
		}
	}
	if empty != nil {
		return *empty, nil
	}
	return Summary{}, fmt.Errorf("session: no session of %s in %s: %w", workspace, dir, ErrNotFound)
}

// Find returns the session of workspace whose id is id or, failing that,
// the only one whose id starts with id or, failing that, the only one
// named id (/rename), for --resume. It returns an
// error wrapping ErrNotFound when none matches and ErrAmbiguous when the
// prefix matches several. Only the matching file is read.
func Find(home, workspace, id string) (Summary, error) {
	if id == "" {
		return Summary{}, fmt.Errorf("session: find: empty session id: %w", ErrNotFound)
	}
	dir, files, err := sessionFiles(home, workspace)
	if err != nil {
		return Summary{}, err
	}
	var matches []string
	for _, f := range files {
		sid := strings.TrimSuffix(f.name, ext)
		if sid == id {
			matches = []string{sid}
			break
		}
		if strings.HasPrefix(sid, id) {
			matches = append(matches, sid)
		}
	}
	switch len(matches) {
	case 0:
		return findTitle(dir, files, workspace, id)
	case 1:
		s, err := summarize(filepath.Join(dir, matches[0]+ext))
		if err != nil {
			return Summary{}, err
		}
		return s, nil
	}
	slices.Sort(matches)
	shown := matches[:min(len(matches), 5)]
	more := ""
	if len(matches) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(matches)-len(shown))
	}
	return Summary{}, fmt.Errorf("session: %q matches %s%s: %w", id, strings.Join(shown, ", "), more, ErrAmbiguous)
}

type file struct {
	name string
	mod  time.Time
}

// sessionFiles lists the *.jsonl regular files of workspace's project
// directory with their modification times. A missing directory yields no
// files.
func sessionFiles(home, workspace string) (string, []file, error) {
	dir, err := ProjectDir(home, workspace)
	if err != nil {
		return "", nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return dir, nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("session: list %s: %w", dir, err)
	}
	files := make([]file, 0, len(entries))
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ext) || !validID(strings.TrimSuffix(e.Name(), ext)) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	return dir, files, nil
}

// summarize reads what a Summary needs from the file at path: the
// metadata line, the first user entries until one holds a prompt, and
// the prefix of every other line, to count model entries.
func summarize(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, fmt.Errorf("session: summarize: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Summary{}, fmt.Errorf("session: summarize: %w", err)
	}
	lr := newLineReader(f)
	line, size, err := lr.next(64 << 10)
	if err == io.EOF {
		return Summary{}, fmt.Errorf("session: summarize %s: empty file, no metadata line", path)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("session: summarize %s: %w", path, err)
	}
	if len(line) < size {
		return Summary{}, fmt.Errorf("session: summarize %s:1: metadata line of %d bytes is too long", path, size)
	}
	meta, err := parseMeta(line)
	if err != nil {
		return Summary{}, fmt.Errorf("session: summarize %s:1: %w", path, err)
	}
	s := Summary{
		ID:       strings.TrimSuffix(filepath.Base(path), ext),
		Path:     path,
		Model:    meta.Model,
		Created:  meta.Created,
		Modified: info.ModTime(),
	}
	decoded := 0
	for {
		head := lr.peek(len(modelPrefix))
		isModel := bytes.HasPrefix(head, []byte(modelPrefix))
		wantPrompt := s.FirstPrompt == "" && decoded < maxPromptEntries && bytes.HasPrefix(head, []byte(userPrefix))
		isTitle := bytes.HasPrefix(head, []byte(titlePrefix))
		keep := 0 // count lines without holding them
		if wantPrompt || isTitle {
			keep = maxLine
		}
		line, size, err := lr.next(keep)
		if err == io.EOF {
			break
		}
		if err != nil {
			return Summary{}, fmt.Errorf("session: summarize %s: read line %d: %w", path, lr.line+1, err)
		}
		if !lr.complete {
			break // a torn last line: Load would skip it too
		}
		if isModel {
			s.Turns++
		}
		if isTitle && len(line) == size {
			var rec struct {
				Title string `json:"title"`
			}
			if json.Unmarshal(line, &rec) == nil {
				s.Title = rec.Title
			}
		}
		if wantPrompt && len(line) == size {
			decoded++
			var rec struct {
				Message llm.Message `json:"message"`
			}
			if json.Unmarshal(line, &rec) == nil {
				s.FirstPrompt = firstPrompt(&rec.Message)
			}
		}
	}
	return s, nil
}

// firstPrompt returns the clipped text the user wrote in m, passing over
// what the framework put there (tool results, system reminders).
func firstPrompt(m *llm.Message) string {
	for _, p := range m.Parts {
		if p.Thought || p.Call != nil || p.Response != nil || p.Media != nil {
			continue
		}
		t := strings.TrimSpace(p.Text)
		if t == "" || strings.HasPrefix(t, "<system-reminder>") {
			continue
		}
		return clip(t, promptLen)
	}
	return ""
}

// clip collapses runs of white space to one space and cuts s to n
// characters, marking a cut with an ellipsis.
func clip(s string, n int) string {
	// A prompt may be a pasted file of megabytes; only its start is
	// shown, so only its start is worked on. Four bytes a character at
	// most, plus slack for collapsed white space.
	cut := false
	if limit := 8*n + 64; len(s) > limit {
		s, cut = strings.ToValidUTF8(s[:limit], ""), true
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) >= n && (cut || len(r) > n) {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	if cut {
		return s + "…"
	}
	return s
}

// findTitle returns the one session of dir whose name is title (case
// does not matter), reading every file, for --resume NAME.
func findTitle(dir string, files []file, workspace, title string) (Summary, error) {
	var found []Summary
	for _, f := range files {
		s, err := summarize(filepath.Join(dir, f.name))
		if err == nil && s.Title != "" && strings.EqualFold(s.Title, strings.TrimSpace(title)) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return Summary{}, fmt.Errorf("session: no session %q of %s in %s (by id or name): %w", title, workspace, dir, ErrNotFound)
	case 1:
		return found[0], nil
	}
	var ids []string
	for _, s := range found {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return Summary{}, fmt.Errorf("session: %d sessions are named %q (%s): resume one by id: %w", len(found), title, strings.Join(ids, ", "), ErrAmbiguous)
}
