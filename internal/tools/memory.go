package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
)

// SaveMemoryName is the name of the memory tool.
const SaveMemoryName = "save_memory"

// MemoryHeading is the section of the user's PLY.md that save_memory
// appends to; the file is loaded into every later session's prompt.
const MemoryHeading = "## Ply Added Memories"

// maxFact bounds one memory: it is one fact, loaded into every prompt.
const maxFact = 1000

// maxMemoryFile refuses to rewrite a PLY.md that has grown beyond reason:
// instruction files are capped when loaded, so more would never be seen.
const maxMemoryFile = 1 << 20

// SaveMemory is the save_memory tool.
type SaveMemory struct {
	path string
	mu   sync.Mutex
}

// NewSaveMemory returns the tool appending to the file at path (the user's
// ~/.ply/PLY.md).
func NewSaveMemory(path string) *SaveMemory { return &SaveMemory{path: path} }

func (*SaveMemory) Name() string { return SaveMemoryName }
func (*SaveMemory) Description() string {
	return "Remember one fact about the user or their preferences for all later sessions (for example \"prefers tabs\" or \"runs tests with make check\"). Use it only when the user asks you to remember something or states a lasting preference; never for facts about the current task."
}

// Kind is other: it writes a file outside the workspace, so it is asked
// about unless the approval mode allows everything.
func (*SaveMemory) Kind() Kind { return KindOther }

func (*SaveMemory) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"fact":{"type":"string","minLength":1,"description":"The fact, as one short self-contained sentence."}},"required":["fact"],"additionalProperties":false}`)
}

func (t *SaveMemory) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p struct {
		Fact string `json:"fact"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return Errorf("INVALID_TOOL_PARAMS", "save_memory: the arguments do not decode: %v", err), nil
	}
	fact := normaliseFact(p.Fact)
	switch {
	case fact == "":
		return Errorf("INVALID_TOOL_PARAMS", "save_memory: the fact is empty"), nil
	case len(fact) > maxFact:
		return Errorf("INVALID_TOOL_PARAMS", "save_memory: the fact is %d bytes; a memory is one short sentence of at most %d", len(fact), maxFact), nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old, err := os.ReadFile(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return Errorf("MEMORY_WRITE_FAILED", "save_memory: reading %s: %v", t.path, err), nil
	case len(old) > maxMemoryFile:
		return Errorf("MEMORY_WRITE_FAILED", "save_memory: %s is %d bytes, more than the %d this tool rewrites; tidy it by hand", t.path, len(old), maxMemoryFile), nil
	}
	updated, added := addMemory(old, fact)
	if !added {
		return Result{Output: "That fact is already saved in " + t.path + ".", Display: "already remembered"}, nil
	}
	if _, err := writeFileAtomic(t.path, updated); err != nil {
		return Errorf("MEMORY_WRITE_FAILED", "save_memory: writing %s: %v", t.path, err), nil
	}
	return Result{
		Output:  "Saved to " + t.path + "; it is loaded in every later session: " + fact,
		Display: "remembered: " + fact,
	}, nil
}

// normaliseFact makes a fact one list item: one line, no bullet of its
// own.
func normaliseFact(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, b := range []string{"- ", "* ", "+ "} {
		s = strings.TrimPrefix(s, b)
	}
	return strings.TrimSpace(s)
}

// addMemory inserts "- fact" at the end of the memory section of doc,
// creating the section at the end when there is none. It keeps every
// other line and the file's line ending, and reports false when the
// section already holds the fact.
func addMemory(doc []byte, fact string) ([]byte, bool) {
	nl := "\n"
	if bytes.Contains(doc, []byte("\r\n")) {
		nl = "\r\n"
	}
	item := "- " + fact
	// Find the heading and the end of its section: the next heading or
	// the end of the file.
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64<<10), maxMemoryFile+1)
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	head := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == MemoryHeading {
			head = i
			break
		}
	}
	if head < 0 {
		var b bytes.Buffer
		b.Write(doc)
		if len(doc) > 0 {
			if !bytes.HasSuffix(doc, []byte("\n")) {
				b.WriteString(nl)
			}
			b.WriteString(nl)
		}
		b.WriteString(MemoryHeading + nl + item + nl)
		return b.Bytes(), true
	}
	end := len(lines)
	for i := head + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "#") {
			end = i
			break
		}
		if strings.TrimSpace(lines[i]) == item {
			return doc, false
		}
	}
	// Insert after the section's last non-blank line.
	at := end
	for at > head+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	out := make([]string, 0, len(lines)+1)
	out = append(out, lines[:at]...)
	out = append(out, item)
	out = append(out, lines[at:]...)
	return []byte(strings.Join(out, nl) + nl), true
}
