package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

func TestRoundTrip(t *testing.T) {
	home, ws, w := newSession(t, "0f6c7e2a-round-trip")
	want := realistic()
	for i, m := range want {
		w.Append(m)
		if i == 1 {
			w.AppendToolState(ToolState{CallID: "call_1", Name: "read_file", State: "executing"})
			w.AppendToolState(ToolState{CallID: "call_3", Name: "run_shell_command", State: "error", ErrorType: "invalid_params", Detail: "unexpected end of JSON input"})
		}
	}
	w.AppendCancelled("user pressed Ctrl-C")
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)

	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, want) {
		t.Fatalf("history after round trip:\n got %+v\nwant %+v", tr.History, want)
	}
	root, _ := canonicalRoot(ws)
	m := tr.Meta
	if m.Version != Version || m.ID != "0f6c7e2a-round-trip" || m.Cwd != root || m.Model != "qwen3-coder-plus" ||
		time.Since(m.Created) > time.Minute || m != w.Meta() {
		t.Errorf("meta = %+v, writer's %+v", m, w.Meta())
	}
	if len(tr.ToolStates) != 2 || tr.ToolStates[0].State != "executing" || tr.ToolStates[0].Seq != 2 ||
		tr.ToolStates[1].ErrorType != "invalid_params" || tr.ToolStates[1].Time.IsZero() {
		t.Errorf("tool states = %+v", tr.ToolStates)
	}
	if len(tr.Cancels) != 1 || tr.Cancels[0].Reason != "user pressed Ctrl-C" || tr.Cancels[0].Seq != 6 {
		t.Errorf("cancels = %+v", tr.Cancels)
	}
	if want := filepath.Join(sessionsDir(t, home, ws), "0f6c7e2a-round-trip.jsonl"); w.Path() != want {
		t.Errorf("path = %s, want %s", w.Path(), want)
	}
}

// List counts turns by the first bytes of each line, so those bytes are
// part of the format: check them, and that the rest of a line is plain
// JSON with no HTML escaping.
func TestLineShape(t *testing.T) {
	_, _, w := newSession(t, "shape")
	for _, m := range realistic() {
		w.Append(m)
	}
	mustClose(t, w)
	lines := readLines(t, w.Path())
	if last := lines[len(lines)-1]; last != "" {
		t.Fatalf("file does not end in a newline: %q", last)
	}
	lines = lines[:len(lines)-1]
	if !strings.HasPrefix(lines[0], `{"type":"session","version":2,`) {
		t.Errorf("metadata line = %s", lines[0])
	}
	for i, l := range lines[1:] {
		prefix := userPrefix
		if i%2 == 1 {
			prefix = modelPrefix
		}
		if !strings.HasPrefix(l, prefix) {
			t.Errorf("line %d does not start with %s: %.80s", i+2, prefix, l)
		}
		var rec struct {
			Seq int64 `json:"seq"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Seq != int64(i+1) {
			t.Errorf("line %d: seq %d, err %v", i+2, rec.Seq, err)
		}
	}
	if !strings.Contains(lines[1], `<pkg/a> & explain`) {
		t.Errorf("HTML-escaped text: %s", lines[1])
	}
}

func TestBigEntry(t *testing.T) {
	_, _, w := newSession(t, "big")
	big := make([]byte, 3<<20) // 4 MiB of base64: far past any reader buffer
	for i := range big {
		big[i] = byte(i * 7)
	}
	want := []llm.Message{
		user(text("look at this"), llm.Part{Media: &llm.Media{MIMEType: "image/png", Data: big}}),
		model(llm.FinishStop, text(strings.Repeat("long answer ", 200000))),
	}
	for _, m := range want {
		w.Append(m)
	}
	mustClose(t, w)
	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, want) {
		t.Fatal("big entries changed in the round trip")
	}
}

func TestConcurrentAppend(t *testing.T) {
	_, _, w := newSession(t, "concurrent")
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				w.Append(user(text(fmt.Sprintf("g%d-%d", g, i))))
				if i%50 == 49 {
					if err := w.Sync(); err != nil {
						t.Error(err)
					}
				}
				if i%20 == 0 {
					w.AppendToolState(ToolState{CallID: fmt.Sprintf("g%d-%d", g, i), State: "executing"})
				}
			}
		})
	}
	wg.Wait()
	mustClose(t, w)

	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if len(tr.History) != writers*each || len(tr.ToolStates) != writers*each/20 {
		t.Fatalf("%d entries and %d tool states, want %d and %d", len(tr.History), len(tr.ToolStates), writers*each, writers*each/20)
	}
	// Each goroutine's entries are in its own order.
	next := make([]int, writers)
	for _, m := range tr.History {
		var g, i int
		if _, err := fmt.Sscanf(m.Parts[0].Text, "g%d-%d", &g, &i); err != nil {
			t.Fatal(err)
		}
		if i != next[g] {
			t.Fatalf("goroutine %d: entry %d after %d", g, i, next[g]-1)
		}
		next[g]++
	}
	if tr.lastSeq != writers*each {
		t.Errorf("last seq %d, want %d", tr.lastSeq, writers*each)
	}
}

func TestSyncFsyncs(t *testing.T) {
	_, _, w := newSession(t, "sync")
	var fsyncs atomic.Int32
	w.fsync = func() error { fsyncs.Add(1); return w.f.Sync() }
	for _, m := range realistic() {
		w.Append(m)
	}
	if n := fsyncs.Load(); n != 0 {
		t.Errorf("Append fsynced %d times", n)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := fsyncs.Load(); n != 1 {
		t.Errorf("Sync fsynced %d times, want 1", n)
	}
	// A fresh reader, while the writer is still open, sees every line.
	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, realistic()) {
		t.Errorf("after Sync a reader sees %d of %d entries", len(tr.History), len(realistic()))
	}
	mustClose(t, w)
	if n := fsyncs.Load(); n != 2 {
		t.Errorf("Close fsynced %d times in all, want 2", n)
	}
}

// Written hands every line appended before it to the operating system,
// where a killed process leaves it, without an fsync; a failed write is
// its error.
func TestWrittenHandsLinesOverWithoutFsync(t *testing.T) {
	_, _, w := newSession(t, "written")
	var fsyncs atomic.Int32
	w.fsync = func() error { fsyncs.Add(1); return w.f.Sync() }
	for _, m := range realistic() {
		w.Append(m)
	}
	if err := w.Written(); err != nil {
		t.Fatal(err)
	}
	if n := fsyncs.Load(); n != 0 {
		t.Errorf("Written fsynced %d times", n)
	}
	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, realistic()) {
		t.Errorf("after Written a reader sees %d of %d entries", len(tr.History), len(realistic()))
	}
	mustClose(t, w)

	restore := SetWriteFault(func(_ string, f io.Writer) io.Writer { return &fullDisk{w: f, room: 150} })
	defer restore()
	_, _, full := newSession(t, "written-full")
	full.Append(user(text("short")))
	if err := full.Written(); err != nil {
		t.Fatalf("the first line fits: %v", err)
	}
	full.Append(model(llm.FinishStop, text(strings.Repeat("a long answer ", 20))))
	if err := full.Written(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Written = %v, want the write's ENOSPC", err)
	}
	full.Close()
}

// The point of the writer goroutine: while the disk is stuck in an
// fsync, appending still returns at once.
func TestAppendDoesNotWaitForDisk(t *testing.T) {
	_, _, w := newSession(t, "stalled")
	entered, release := make(chan struct{}), make(chan struct{})
	var stalled sync.Once
	w.fsync = func() error {
		stalled.Do(func() { // the first fsync hangs until released
			close(entered)
			<-release
		})
		return nil
	}
	synced := make(chan error)
	go func() { synced <- w.Sync() }()
	<-entered // the writer goroutine is now stuck in fsync

	appended := make(chan struct{})
	go func() {
		for _, m := range realistic() {
			w.Append(m)
		}
		w.AppendToolState(ToolState{CallID: "c", State: "success"})
		w.AppendCancelled("stop")
		close(appended)
	}()
	select {
	case <-appended:
	case <-time.After(10 * time.Second):
		t.Fatal("Append blocked while the disk was stalled")
	}
	select {
	case err := <-synced:
		t.Fatalf("Sync returned (%v) before its fsync finished", err)
	default:
	}
	close(release)
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)
	if tr := mustLoad(t, w.Path()); len(tr.History) != len(realistic()) {
		t.Errorf("%d entries on disk, want %d", len(tr.History), len(realistic()))
	}
}

func TestWriteErrorIsSticky(t *testing.T) {
	_, _, w := newSession(t, "failing")
	w.Append(user(text("saved")))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	w.f.Close() // the disk goes away
	w.Append(user(text("lost")))
	err := w.Sync()
	if !errors.Is(err, os.ErrClosed) || !strings.Contains(err.Error(), w.Path()) {
		t.Fatalf("Sync after a failed write = %v, want the write error naming the file", err)
	}
	if err2 := w.Sync(); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second Sync = %v, want the same error", err2)
	}
	if err2 := w.Close(); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("Close = %v, want the first error", err2)
	}
}

func TestClosed(t *testing.T) {
	_, _, w := newSession(t, "closed")
	mustClose(t, w)
	w.Append(user(text("late")))
	w.AppendCancelled("late")
	if err := w.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close = %v", err)
	}
	if err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v", err)
	}
	if tr := mustLoad(t, w.Path()); len(tr.History) != 0 || len(tr.Cancels) != 0 {
		t.Errorf("appended after Close: %+v", tr)
	}
}

func TestPermissions(t *testing.T) {
	home, ws, w := newSession(t, "perms")
	mustClose(t, w)
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	for d := sessionsDir(t, home, ws); d != home; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
}

func TestCreateRefuses(t *testing.T) {
	home, ws, w := newSession(t, "taken")
	mustClose(t, w)
	if _, err := Create(home, ws, "taken", "m"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing session = %v, want ErrExist", err)
	}
	for _, id := range []string{"", "../escape", "a/b", ".hidden", "sp ace", strings.Repeat("x", 200)} {
		if w, err := Create(home, ws, id, "m"); err == nil {
			w.Close()
			t.Errorf("Create accepted id %q", id)
		}
	}
}

func TestProjectDir(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	a := sessionsDir(t, home, ws)
	if b := sessionsDir(t, home, ws+"/./"); a != b {
		t.Errorf("same root, different dirs: %s %s", a, b)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err == nil {
		if b := sessionsDir(t, home, link); a != b {
			t.Errorf("root through a symlink: %s, want %s", b, a)
		}
	}
	if b := sessionsDir(t, home, t.TempDir()); a == b {
		t.Error("two workspaces share a directory")
	}
	if base := filepath.Base(a); len(base) != 16 || filepath.Dir(filepath.Dir(a)) != home {
		t.Errorf("project dir %s", a)
	}
}
