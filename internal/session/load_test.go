package session

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// A crash cuts the last write short: half a line, no newline. Loading
// skips it with a warning and keeps everything before it; Open cuts it
// away, so the session continues as if the torn entry was never written.
func TestTornLastLine(t *testing.T) {
	_, _, w := newSession(t, "torn")
	want := realistic()
	for _, m := range want[:3] {
		w.Append(m)
	}
	mustClose(t, w)
	good := fileSize(t, w.Path())

	// The line the crash interrupted, as the writer would have produced it.
	_, _, w2 := newSession(t, "model")
	w2.Append(want[3])
	mustClose(t, w2)
	full := readLines(t, w2.Path())[1]
	appendRaw(t, w.Path(), full[:len(full)/2])

	tr := mustLoad(t, w.Path())
	if !reflect.DeepEqual(tr.History, want[:3]) {
		t.Fatalf("%d entries survive a torn last line, want 3", len(tr.History))
	}
	if len(tr.Warnings) != 1 || !hasWarning(tr, 5, "torn last line") {
		t.Fatalf("warnings = %v, want one naming line 5", tr.Warnings)
	}

	w, tr2, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr2.History, tr.History) {
		t.Errorf("Open loaded a different history")
	}
	if got := fileSize(t, w.Path()); got != good {
		t.Errorf("after Open the file has %d bytes, want %d (torn line cut)", got, good)
	}
	for _, m := range want[3:] {
		w.Append(m)
	}
	mustClose(t, w)
	tr = mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, want) {
		t.Fatalf("after resuming: %d entries, want %d", len(tr.History), len(want))
	}
	if tr.lastSeq != int64(len(want)) {
		t.Errorf("seq continued to %d, want %d", tr.lastSeq, len(want))
	}
}

// A write cut just before its newline holds a whole record: keep it, and
// give it its newline before appending.
func TestLastLineWithoutNewline(t *testing.T) {
	_, _, w := newSession(t, "nonl")
	want := realistic()
	for _, m := range want[:2] {
		w.Append(m)
	}
	mustClose(t, w)
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.Path(), b[:len(b)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if len(tr.History) != 2 {
		t.Fatalf("%d entries, want 2", len(tr.History))
	}
	w, _, err = Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	w.Append(want[2])
	mustClose(t, w)
	tr = mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, want[:3]) {
		t.Fatalf("%d entries after appending, want 3", len(tr.History))
	}
}

// Open does not touch a file that ends on a line boundary.
func TestOpenCleanFileUnchanged(t *testing.T) {
	_, _, w := newSession(t, "clean")
	w.Append(user(text("hi")))
	mustClose(t, w)
	before, _ := os.ReadFile(w.Path())
	w, _, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)
	if after, _ := os.ReadFile(w.Path()); string(after) != string(before) {
		t.Error("Open changed a clean file")
	}
}

func TestGarbledMiddleLine(t *testing.T) {
	_, _, w := newSession(t, "garbled")
	want := realistic()
	for _, m := range want {
		w.Append(m)
	}
	mustClose(t, w)
	insertLine(t, w.Path(), 3, `{"type":"entry","message":{"role":"model","parts":[{"te`)
	insertLine(t, w.Path(), 5, "")
	insertLine(t, w.Path(), 6, "\x00\x00\x00\x00")

	tr := mustLoad(t, w.Path())
	if !reflect.DeepEqual(tr.History, want) {
		t.Fatalf("garbled lines cost entries: %d of %d", len(tr.History), len(want))
	}
	for _, line := range []int{3, 5, 6} {
		if !hasWarning(tr, line, "garbled line skipped") {
			t.Errorf("no warning for line %d: %v", line, tr.Warnings)
		}
	}
	if len(tr.Warnings) != 3 {
		t.Errorf("warnings = %v", tr.Warnings)
	}
	// Open leaves lines in the middle alone: they end in a newline, and
	// appending after them is safe.
	size := fileSize(t, w.Path())
	w, _, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)
	if fileSize(t, w.Path()) != size {
		t.Error("Open changed a file whose last line is whole")
	}
}

func TestSkippedRecords(t *testing.T) {
	_, _, w := newSession(t, "unknown")
	w.Append(user(text("one")))
	w.Append(model(llm.FinishStop, text("two")))
	mustClose(t, w)
	insertLine(t, w.Path(), 2, `{"type":"bookmark","time":"2030-01-01T00:00:00Z","label":"from a newer ply"}`)
	insertLine(t, w.Path(), 3, `{"type":"entry","seq":9,"message":{"role":"system","parts":[]}}`)
	insertLine(t, w.Path(), 4, `{"type":"entry","seq":9}`)
	insertLine(t, w.Path(), 5, `{"type":"compaction"}`)
	insertLine(t, w.Path(), 6, `{"type":"session","version":1,"id":"other"}`)
	insertLine(t, w.Path(), 7, `["not","an","object"]`)

	tr := mustLoad(t, w.Path())
	if len(tr.History) != 2 || tr.History[1].Text() != "two" || tr.Compactions != 0 {
		t.Fatalf("history = %+v", tr.History)
	}
	for line, msg := range map[int]string{
		2: `unknown type "bookmark"`, 3: `unknown role "system"`, 4: "without a message",
		5: "compaction without a history", 6: "second metadata line", 7: "garbled",
	} {
		if !hasWarning(tr, line, msg) {
			t.Errorf("no warning %q for line %d: %v", msg, line, tr.Warnings)
		}
	}
}

func TestCompactionReplay(t *testing.T) {
	_, _, w := newSession(t, "compact")
	h := realistic()
	for _, m := range h[:4] {
		w.Append(m)
	}
	w.AppendToolState(ToolState{CallID: "call_1", State: "success"})
	w.AppendCancelled("before compaction")
	summary := user(text("<state_snapshot>fixing pkg/a</state_snapshot>"))
	ack := model(llm.FinishStop, text("Got it."))
	w.AppendCompaction([]llm.Message{summary, ack, h[3]})
	w.Append(h[4])
	w.AppendToolState(ToolState{CallID: "call_9", State: "executing"})
	mustClose(t, w)

	w, tr, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	noWarnings(t, tr)
	want := []llm.Message{summary, ack, h[3], h[4]}
	if !reflect.DeepEqual(tr.History, want) {
		t.Fatalf("replayed history:\n got %+v\nwant %+v", tr.History, want)
	}
	if tr.Compactions != 1 || len(tr.Cancels) != 0 || len(tr.ToolStates) != 1 || tr.ToolStates[0].CallID != "call_9" {
		t.Errorf("compactions %d, cancels %+v, tool states %+v", tr.Compactions, tr.Cancels, tr.ToolStates)
	}

	// A second compaction, to nothing, after resuming.
	w.AppendCompaction(nil)
	w.Append(h[5])
	mustClose(t, w)
	tr = mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, h[5:]) || tr.Compactions != 2 || tr.lastSeq != 6 {
		t.Errorf("after the second compaction: %+v (%d compactions, seq %d)", tr.History, tr.Compactions, tr.lastSeq)
	}
}

func TestInvalidMetadata(t *testing.T) {
	for name, content := range map[string]string{
		"empty":      "",
		"garbage":    "hello\n",
		"torn":       `{"type":"session","vers`,
		"not first":  `{"type":"entry","message":{"role":"user","parts":[]}}` + "\n",
		"no version": `{"type":"session","id":"x"}` + "\n",
		"no id":      `{"type":"session","version":1}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir() + "/x.jsonl"
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Load = %v, want an error naming the file", err)
			}
			if _, _, err := Open(path); err == nil {
				t.Fatal("Open accepted it")
			}
		})
	}
	if _, err := Load(t.TempDir() + "/missing.jsonl"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file = %v", err)
	}
}

func TestNewerVersion(t *testing.T) {
	path := t.TempDir() + "/future.jsonl"
	content := `{"type":"session","version":3,"id":"future"}` + "\n" +
		`{"type":"entry","message":{"role":"user","parts":[{"text":"hi"}]},"seq":1}` + "\n" +
		`{"type":"hologram"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := mustLoad(t, path)
	if len(tr.History) != 1 || !hasWarning(tr, 1, "newer") || !hasWarning(tr, 3, "unknown type") {
		t.Errorf("history %+v, warnings %v", tr.History, tr.Warnings)
	}
	if _, _, err := Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer version = %v", err)
	}
}

func TestTodosSurviveCompaction(t *testing.T) {
	_, _, w := newSession(t, "todos")
	h := realistic()
	w.Append(h[0])
	w.AppendTodos([]map[string]string{{"id": "1", "content": "first", "status": "pending"}})
	w.AppendTodos([]map[string]string{{"id": "1", "content": "first", "status": "completed"}})
	w.AppendCompaction([]llm.Message{h[0]})
	w.AppendTodos(nil) // a null list is not a list: skipped with a warning
	mustClose(t, w)
	tr := mustLoad(t, w.Path())
	if want := `[{"content":"first","id":"1","status":"completed"}]`; string(tr.Todos) != want {
		t.Fatalf("todos = %s, want %s", tr.Todos, want)
	}
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0].Msg, "todos record without a list") {
		t.Fatalf("warnings = %v", tr.Warnings)
	}
}
