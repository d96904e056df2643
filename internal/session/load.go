package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// maxLine bounds the memory one line may take. Entries holding images or
// large tool output run to megabytes, so the bound is far above anything
// ply writes; it exists so that a corrupt file (gigabytes without a
// newline) cannot exhaust memory.
const maxLine = 256 << 20

// Transcript is a session as loaded: the history to resume from and what
// the file said about how it ended.
type Transcript struct {
	Path string
	Meta Meta
	// Title is the name the user gave the session last ("" for none).
	Title string

	// History is the saved history after replaying compactions: the
	// latest compaction's replacement followed by the entries after it.
	// It is not repaired: run repair.RepairWith(History,
	// repair.Options{SkipTrailing: true}) and then resume.Classify.
	History []llm.Message
	// ToolStates and Cancels are those recorded since the last
	// compaction, in file order.
	ToolStates []ToolState
	Cancels    []Cancel
	// Todos is the last task list recorded (a JSON array), kept across
	// compactions: the list is the session's, not the history's.
	Todos json.RawMessage
	// Background is the last recorded state of each background task,
	// kept across compactions (background.go).
	Background []Background
	// Schedules are the schedules active at the end of the file, kept
	// across compactions; ScheduleCount is how many were ever created
	// (schedule.go).
	Schedules     []Schedule
	ScheduleCount int
	// PromptFacts holds the facts of the session's system prompt, the
	// first prompt record, and LastFacts those of the last one (what
	// the model was told last); both nil in a transcript without any,
	// such as one an older ply wrote. They are kept across compactions
	// (prompt.go).
	PromptFacts json.RawMessage
	LastFacts   json.RawMessage
	// Compactions is how many compaction lines were replayed.
	Compactions int

	// Warnings lists the lines that were skipped (torn, garbled, of an
	// unknown type) and anything else odd that was tolerated.
	Warnings []Warning

	lastSeq int64 // highest entry seq seen: the Writer continues after it

	// hist is the history being replayed (lazy.go); History is made
	// from it at the end, or kept in step with it throughout when eager
	// (a caller looks at History record by record).
	hist  []histEntry
	eager bool
	// spare is the array the next compaction line builds the history
	// in, and arena the block entry lines are copied into (lazy.go).
	spare []histEntry
	arena []byte
	// mirror is the history as the writer counts it, when it differs
	// from History (see materialize).
	mirror []llm.Message
}

// tailState is what load learned about the end of the file, for Open.
type tailState struct {
	metaEnd   int64 // offset just past the metadata line
	end       int64 // offset of the end of what was read
	goodEnd   int64 // offset just past the last line that ended in a newline
	torn      bool  // the bytes after goodEnd are a torn line
	noNewline bool  // the last line is complete and valid but lacks its newline
}

// record is the union of every record type, so that a line is decoded in
// one pass whatever its type. Fields a type does not use stay zero.
type record struct {
	Type string `json:"type"`

	// session
	Version  int       `json:"version"`
	ID       string    `json:"id"`
	Cwd      string    `json:"cwd"`
	Created  time.Time `json:"created"`
	Model    string    `json:"model"`
	Forked   string    `json:"forked_from"`
	Worktree *Worktree `json:"worktree"`

	// entry, tool_state, compaction, cancelled
	Time time.Time `json:"time"`

	// entry
	Seq     int64        `json:"seq"`
	Message *llm.Message `json:"message"`

	// tool_state
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	State     string `json:"state"`
	ErrorType string `json:"error_type"`
	Detail    string `json:"detail"`

	// compaction; a pointer, to tell an empty replacement from none.
	// An older compaction holds History, a newer one Base and Ops
	// (compact.go).
	History *[]llm.Message `json:"history"`
	Base    int            `json:"base"`
	Ops     []rawOp        `json:"ops"`

	// cancelled
	Reason string `json:"reason"`

	// title
	Title string `json:"title"`

	// unsaved (unsaved.go)
	Lost  int    `json:"lost"`
	Error string `json:"error"`

	// todos
	Todos json.RawMessage `json:"todos"`

	// background, round (background.go)
	Task   string `json:"task"`
	Kind   string `json:"kind"`
	Label  string `json:"label"`
	Send   string `json:"send"`
	Source string `json:"source"`

	// schedule (schedule.go)
	ScheduleID string `json:"schedule"`
	Spec       string `json:"spec"`
	Every      string `json:"every"`
	Cron       string `json:"cron"`
	Text       string `json:"text"`
	Recurring  bool   `json:"recurring"`

	// prompt (prompt.go)
	Facts json.RawMessage `json:"facts"`

	// checkpoint, rewind (rewind.go)
	Checkpoint   string `json:"checkpoint"`
	Prompt       int    `json:"prompt"`
	Undo         bool   `json:"undo"`
	Code         bool   `json:"code"`
	Conversation bool   `json:"conversation"`
}

// Load reads the session at path, streaming it line by line. A torn or
// garbled line, at the end or in the middle, and a line of an unknown type
// are skipped with a warning; nothing around them is lost. Only a missing
// or invalid metadata line, or failing to read the file, is an error.
//
// Load does not change the file. To append to it, use Open, which also
// cuts a torn last line away.
func Load(path string) (*Transcript, error) {
	t, _, err := load(path)
	return t, err
}

func load(path string) (*Transcript, tailState, error) { return replay(path, nil) }

// replay loads path, calling each (when not nil) with every record before
// it is applied.
func replay(path string, each func(*Transcript, *record)) (*Transcript, tailState, error) {
	var tail tailState
	f, err := os.Open(path)
	if err != nil {
		return nil, tail, fmt.Errorf("session: load: %w", err)
	}
	defer f.Close()

	lr := newLineReader(f)
	t := &Transcript{Path: path, eager: each != nil}
	if err := t.readMeta(lr); err != nil {
		return nil, tail, err
	}
	tail.goodEnd = lr.off
	tail.metaEnd = lr.off
	if !lr.complete {
		tail.noNewline = true
	}
	for {
		line, size, err := lr.next(maxLine)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, tail, fmt.Errorf("session: load %s: read line %d: %w", path, lr.line+1, err)
		}
		if lr.complete {
			// Whatever this line holds, it ends at a line boundary, and
			// a line appended after it starts cleanly.
			tail.goodEnd = lr.off
		}
		if len(line) < size {
			t.warn(lr.line, fmt.Sprintf("line of %d bytes exceeds the %d-byte limit: skipped", size, maxLine))
			tail.torn = !lr.complete
			continue
		}
		if !t.eager && lr.complete && t.quickEntry(line, lr.line) {
			continue
		}
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			if !lr.complete {
				// Only the last line can lack its newline. Every line
				// is written whole with one write call, so this is a
				// write a crash cut short, and nothing before it is
				// affected.
				t.warn(lr.line, fmt.Sprintf("torn last line (%d bytes, no newline) skipped: a write was cut short (ply was killed, or the disk was full)", size))
				tail.torn = true
				continue
			}
			t.warn(lr.line, fmt.Sprintf("garbled line skipped: %v", err))
			t.garbledEntry(line, lr.line)
			continue
		}
		if !lr.complete {
			// A complete record whose newline did not make it: keep it.
			tail.noNewline = true
		}
		if each != nil {
			each(t, &rec)
		}
		t.apply(&rec, lr.line)
	}
	tail.end = lr.off
	if !t.eager {
		t.History, t.mirror = t.materialize()
	}
	t.hist, t.spare, t.arena = nil, nil, nil
	return t, tail, nil
}

// readMeta reads and checks the first line. A session without valid
// metadata is not a session: there is no id, workspace or version to go
// by, so it is an error rather than a warning.
func (t *Transcript) readMeta(lr *lineReader) error {
	line, size, err := lr.next(maxLine)
	if err == io.EOF {
		return fmt.Errorf("session: load %s: empty file, no metadata line", t.Path)
	}
	if err != nil {
		return fmt.Errorf("session: load %s: read metadata line: %w", t.Path, err)
	}
	if len(line) < size {
		return fmt.Errorf("session: load %s:1: metadata line of %d bytes is too long", t.Path, size)
	}
	m, err := parseMeta(line)
	if err != nil {
		return fmt.Errorf("session: load %s:1: %w", t.Path, err)
	}
	t.Meta = m
	if m.Version > Version {
		t.warn(1, fmt.Sprintf("format version %d is newer than %d: records of unknown types are skipped", m.Version, Version))
	}
	return nil
}

func parseMeta(line []byte) (Meta, error) {
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return Meta{}, fmt.Errorf("invalid metadata line: %w", err)
	}
	switch {
	case rec.Type != typeSession:
		return Meta{}, fmt.Errorf("invalid metadata line: type %q, want %q", rec.Type, typeSession)
	case rec.Version < 1:
		return Meta{}, errors.New("invalid metadata line: no format version")
	case rec.ID == "":
		return Meta{}, errors.New("invalid metadata line: no session id")
	}
	return Meta{Version: rec.Version, ID: rec.ID, Cwd: rec.Cwd, Created: rec.Created, Model: rec.Model, ForkedFrom: rec.Forked, Worktree: rec.Worktree}, nil
}

// apply replays one record onto the transcript.
func (t *Transcript) apply(rec *record, line int) {
	switch rec.Type {
	case typeEntry:
		m := rec.Message
		switch {
		case m == nil:
			t.warn(line, "entry without a message skipped")
			return
		case m.Role != llm.RoleUser && m.Role != llm.RoleModel:
			// A provider would reject the whole request over one
			// entry of no known role; losing the entry is the lesser
			// harm.
			t.warn(line, fmt.Sprintf("entry of unknown role %q skipped", m.Role))
			return
		}
		t.appendEntry(*m, line)
		t.lastSeq = max(t.lastSeq, rec.Seq)
	case typeToolState:
		t.ToolStates = append(t.ToolStates, ToolState{
			Time: rec.Time, CallID: rec.CallID, Name: rec.Name, State: rec.State,
			ErrorType: rec.ErrorType, Detail: rec.Detail, Seq: t.lastSeq,
		})
	case typeBackground:
		t.applyBackground(rec)
	case typeRound:
	case typeSchedule:
		t.applySchedule(rec)
	case typeCheckpoint:
	case typeRewind:
		if rec.History != nil {
			t.replaceHistory(*rec.History, line) // the conversation was rewound
			// The notes told since may be gone with it: what the
			// model surely saw is its system prompt.
			t.LastFacts = t.PromptFacts
		}
	case typeCompaction:
		switch {
		case rec.History != nil:
			t.replaceHistory(*rec.History, line)
		case rec.Ops != nil:
			t.applyCompaction(rec, line)
		default:
			t.warn(line, "compaction without a history skipped")
			return
		}
		// What was recorded about the replaced entries goes with them.
		t.ToolStates = nil
		t.Cancels = nil
		t.Compactions++
	case typeTodos:
		if len(rec.Todos) == 0 || string(rec.Todos) == "null" {
			t.warn(line, "todos record without a list skipped")
			return
		}
		t.Todos = rec.Todos
	case typePrompt:
		t.applyPrompt(rec, line)
	case typeTitle:
		t.Title = rec.Title
	case typeCancelled:
		t.Cancels = append(t.Cancels, Cancel{Time: rec.Time, Reason: rec.Reason, Seq: t.lastSeq})
	case typeUnsaved:
		what := fmt.Sprintf("%d records", rec.Lost)
		if rec.Lost == 1 {
			what = "1 record"
		}
		t.warn(line, fmt.Sprintf("%s after this line could not be saved (%s): missing from the session", what, rec.Error))
	case typeSession:
		t.warn(line, "second metadata line skipped")
	default:
		// Forward compatibility: a newer ply may record more.
		t.warn(line, fmt.Sprintf("record of unknown type %q skipped", rec.Type))
	}
}

func (t *Transcript) warn(line int, msg string) {
	t.Warnings = append(t.Warnings, Warning{Path: t.Path, Line: line, Msg: msg})
}

// lineReader yields the lines of a file of any line length, keeping track
// of line numbers and offsets, reusing one buffer.
type lineReader struct {
	r   *bufio.Reader
	buf []byte

	// Of the line last returned:
	line     int   // its number, from 1
	off      int64 // the offset just past it (and its newline)
	complete bool  // it ended in a newline
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its newline, keeping at most keep
// bytes of it (the rest is read and dropped), and the line's full size.
// The slice is valid until the next call. It returns io.EOF when the file
// has no more bytes.
func (lr *lineReader) next(keep int) (line []byte, size int, err error) {
	lr.buf = lr.buf[:0]
	n := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += len(chunk)
		if room := keep - len(lr.buf); room > 0 {
			lr.buf = append(lr.buf, chunk[:min(room, len(chunk))]...)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			lr.line++
			lr.off += int64(n)
			lr.complete = true
			if len(lr.buf) == n {
				lr.buf = lr.buf[:n-1]
			}
			return lr.buf, n - 1, nil
		case io.EOF:
			if n == 0 {
				return nil, 0, io.EOF
			}
			lr.line++
			lr.off += int64(n)
			lr.complete = false
			return lr.buf, n, nil
		default:
			return nil, 0, err
		}
	}
}

// peek returns up to n bytes at the start of the next line without
// consuming them (fewer at the end of the file, and they may run past a
// short line's end).
func (lr *lineReader) peek(n int) []byte {
	b, _ := lr.r.Peek(n)
	return b
}
