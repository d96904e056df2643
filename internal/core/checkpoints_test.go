package core

import (
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// A batch of read-only calls records nothing; one call that may write
// records the workspace first.
func TestCheckpointBeforeWritingBatchesOnly(t *testing.T) {
	ws, store := oneFileWorkspace(t)
	cp := &checkpointer{store: store, roots: ws.Roots(), reg: tools.NewRegistry(tools.NewReadFile(ws), tools.NewWriteFile(ws)),
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := context.Background()
	cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "read_file"}, {Name: "read_file"}})
	if ids, _ := store.IDs(); len(ids) != 0 {
		t.Fatalf("a read-only batch recorded %d checkpoints", len(ids))
	}
	cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "read_file"}, {Name: "write_file"}})
	if ids, _ := store.IDs(); len(ids) != 1 {
		t.Fatalf("a writing batch recorded %d checkpoints, want 1", len(ids))
	}
	var off *checkpointer // checkpointing off: a no-op, not a panic
	off.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "write_file"}})
}

func BenchmarkBeforeToolsReadOnly(b *testing.B) {
	ws, _ := tools.NewWorkspace(b.TempDir())
	store, _ := checkpoint.Open(b.TempDir(), checkpoint.Options{})
	cp := &checkpointer{store: store, roots: ws.Roots(), reg: tools.NewRegistry(tools.NewReadFile(ws), tools.NewWriteFile(ws))}
	calls := []*turn.ToolCallRequest{{Name: "read_file"}, {Name: "read_file"}, {Name: "read_file"}}
	ctx := context.Background()
	for b.Loop() {
		cp.beforeTools(ctx, calls)
	}
}

// A prompt sent while the baseline is being taken does not wait for it
// and names it as its checkpoint; a writing batch waits for it (telling
// the user when the wait is long), then records its own checkpoint.
func TestPromptDoesNotWaitForTheBaseline(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	store, err := checkpoint.Open(t.TempDir(), checkpoint.Options{Track: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := session.Create(t.TempDir(), t.TempDir(), "11111111-1111-1111-1111-111111111111", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	started, release := make(chan struct{}), make(chan struct{})
	baselineHook = func() { close(started); <-release }
	defer func() { baselineHook = nil }()
	var notices syncBuffer
	cp := &checkpointer{store: store, roots: ws.Roots(), sess: &opened{w: w}, notices: &notices,
		reg: tools.NewRegistry(tools.NewReadFile(ws), tools.NewWriteFile(ws)), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	progressAfter = 0 // the wait below is announced at once
	defer func() { progressAfter = time.Second }()
	cp.startBaseline(func() {})
	defer cp.close()
	cp.requestSent()
	<-started

	// The baseline is blocked: the prompt and a read-only batch go on.
	ctx := context.Background()
	cp.onUserQuery(ctx, nil)
	cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "read_file"}})
	w.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "edit a.txt"}}})
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if pl, err := session.Prompts(w.Path()); err != nil || len(pl.Prompts) != 1 || pl.Prompts[0].Checkpoint != cp.baseline.id {
		t.Fatalf("prompts %+v (%v): want one naming the baseline %s", pl, err, cp.baseline.id)
	}
	if ids, _ := store.IDs(); len(ids) != 0 {
		t.Fatalf("checkpoints stored while the baseline is blocked: %v", ids)
	}

	// A writing batch waits for the baseline.
	wrote := make(chan struct{})
	go func() {
		cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "write_file"}})
		close(wrote)
	}()
	notices.waitFor(t, "first checkpoint")
	select {
	case <-wrote:
		t.Fatal("a writing batch went on while the baseline was blocked")
	default:
	}
	close(release)
	<-wrote
	m, err := store.Load(cp.baseline.id)
	if err != nil {
		t.Fatalf("the baseline the prompt names: %v", err)
	}
	if len(m.Entries) != 1 || m.Entries[0].Rel != "a.txt" {
		t.Fatalf("baseline entries %+v", m.Entries)
	}
}

// syncBuffer is a buffer a test can wait on.
type syncBuffer struct {
	mu      sync.Mutex
	b       strings.Builder
	written chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return len(p), nil
}

// waitFor returns once the buffer holds text.
func (s *syncBuffer) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), text) {
			s.mu.Unlock()
			return
		}
		ch := make(chan struct{})
		s.written = ch
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no %q in %q", text, s.b.String())
		}
	}
}

// BenchmarkFirstPromptCheckpoint measures what a new process's first
// prompt waits for, in a workspace of 47 files: "background" is what
// onUserQuery costs with the first checkpoint taken from start-up (target
// under 1 ms), "inline" the same checkpoint taken before the prompt is
// sent, as ply did before; "cold" is an empty store (every file read,
// stored and synced), "warm" one that holds the workspace already.
func BenchmarkFirstPromptCheckpoint(b *testing.B) {
	dir := b.TempDir()
	for i := range 47 {
		writeFile(b, filepath.Join(dir, fmt.Sprintf("pkg/p%02d/f%02d.go", i/10, i)), strings.Repeat("package p // text\n", 40+i), 0o644)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	warmDir := b.TempDir()
	if s, err := checkpoint.Open(warmDir, checkpoint.Options{}); err != nil {
		b.Fatal(err)
	} else if _, err := s.Checkpoint(context.Background(), ws.Roots()); err != nil {
		b.Fatal(err)
	}
	w, err := session.Create(b.TempDir(), b.TempDir(), "11111111-1111-1111-1111-111111111111", "m")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, store := range []string{"cold", "warm"} {
		for _, mode := range []string{"background", "inline"} {
			b.Run(store+"/"+mode, func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					b.StopTimer()
					sd := warmDir
					if store == "cold" {
						sd = b.TempDir()
					}
					s, err := checkpoint.Open(sd, checkpoint.Options{Track: true})
					if err != nil {
						b.Fatal(err)
					}
					cp := &checkpointer{store: s, roots: ws.Roots(), sess: &opened{w: w}, log: log}
					if mode == "background" {
						cp.startBaseline(func() {})
						cp.requestSent()
					}
					b.StartTimer()
					if mode == "background" {
						cp.onUserQuery(ctx, nil)
					} else {
						cp.take(ctx, "prompt")
						w.AppendCheckpoint("x")
					}
					b.StopTimer()
					cp.close()
					b.StartTimer()
				}
			})
		}
	}
}

// The baseline starts once the first request is answered, not before.
func TestBaselineStartsAfterTheFirstAnswer(t *testing.T) {
	store, err := checkpoint.Open(t.TempDir(), checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	baselineHook = func() { close(started) }
	defer func() { baselineHook = nil }()
	baselineDelay = time.Hour
	defer func() { baselineDelay = time.Second }()
	cp := &checkpointer{store: store, roots: []string{t.TempDir()}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	cp.startBaseline(func() {})
	defer cp.close()
	select {
	case <-started:
		t.Fatal("the baseline started before the first request was answered")
	default:
	}
	p := answerSignal{Provider: oneChunk{}, c: &Session{cp: cp}}
	for range p.Stream(context.Background(), &llm.Request{}) {
	}
	<-started
}

// oneChunk is a provider that answers every request with one chunk.
type oneChunk struct{}

func (oneChunk) Stream(context.Context, *llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) { yield(llm.Chunk{}, nil) }
}

// While the baseline is being taken, a batch whose writes name their
// files saves those ahead of it and goes on; a rewind to the prompt then
// restores what was there before the write. A later prompt, the files
// having changed since the baseline began, waits for it and records its
// own checkpoint.
func TestWritingBatchSavesAheadOfTheBaseline(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	writeFile(t, filepath.Join(dir, "b.txt"), "b", 0o644)
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	store, err := checkpoint.Open(t.TempDir(), checkpoint.Options{Track: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := session.Create(t.TempDir(), t.TempDir(), "11111111-1111-1111-1111-111111111111", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	started, release := make(chan struct{}), make(chan struct{})
	baselineHook = func() { close(started); <-release }
	defer func() { baselineHook = nil }()
	var notices syncBuffer
	writer := tools.NewWriteFile(ws)
	cp := &checkpointer{store: store, roots: ws.Roots(), sess: &opened{w: w}, notices: &notices,
		reg: tools.NewRegistry(tools.NewReadFile(ws), writer), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	progressAfter = 0
	defer func() { progressAfter = time.Second }()
	cp.startBaseline(func() {})
	defer cp.close()
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // before cp.close, whatever fails
	cp.requestSent()
	<-started

	ctx := context.Background()
	cp.onUserQuery(ctx, nil)
	w.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "write a.txt"}}})
	args := `{"file_path":"a.txt","content":"written"}`
	went := make(chan struct{})
	go func() {
		cp.beforeTools(ctx, []*turn.ToolCallRequest{{Name: "write_file", Args: args}})
		close(went)
	}()
	select {
	case <-went:
	case <-time.After(30 * time.Second):
		t.Fatal("a batch writing a named file waited for the whole baseline")
	}
	if r, err := writer.Execute(ctx, []byte(args), nil); err != nil || r.IsError {
		t.Fatalf("write_file: %+v %v", r, err)
	}

	// The next prompt waits for the baseline and records its own.
	second := make(chan struct{})
	go func() {
		cp.onUserQuery(ctx, nil)
		close(second)
	}()
	for deadline := time.Now().Add(time.Minute); !notices.has("first checkpoint"); {
		select {
		case <-second:
			t.Fatal("a prompt after a write named the baseline, still being taken, as its checkpoint")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the prompt neither waited with a notice nor went on")
		}
	}
	unblock()
	<-second
	w.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "p"}}})
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	pl, err := session.Prompts(w.Path())
	if err != nil || len(pl.Prompts) != 2 || pl.Prompts[0].Checkpoint != cp.baseline.id || pl.Prompts[1].Checkpoint == cp.baseline.id || pl.Prompts[1].Checkpoint == "" {
		t.Fatalf("prompts %+v (%v): want the first naming the baseline %s, the second its own", pl, err, cp.baseline.id)
	}
	for _, c := range []struct{ id, want string }{{pl.Prompts[0].Checkpoint, "a"}, {pl.Prompts[1].Checkpoint, "written"}} {
		if _, err := store.Restore(ctx, c.id); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, filepath.Join(dir, "a.txt")); got != c.want {
			t.Errorf("after a rewind to %s: a.txt = %q, want %q", c.id, got, c.want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A batch holding a call that may write anywhere (a shell command)
// waits for the whole baseline, even beside a write that names its file,
// and saves nothing ahead of it.
func TestShellBatchWaitsForTheBaseline(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	storeDir := t.TempDir()
	store, err := checkpoint.Open(storeDir, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	baselineHook = func() { close(started); <-release }
	defer func() { baselineHook = nil }()
	var notices syncBuffer
	cp := &checkpointer{store: store, roots: ws.Roots(), notices: &notices,
		reg: tools.NewRegistry(tools.NewWriteFile(ws), tools.NewShell(ws)), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	progressAfter = 0
	defer func() { progressAfter = time.Second }()
	cp.startBaseline(func() {})
	defer cp.close()
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // before cp.close, whatever fails
	cp.requestSent()
	<-started
	went := make(chan struct{})
	go func() {
		cp.beforeTools(context.Background(), []*turn.ToolCallRequest{
			{Name: "write_file", Args: `{"file_path":"a.txt","content":"x"}`},
			{Name: "run_shell_command", Args: `{"command":"echo hi > b.txt"}`},
		})
		close(went)
	}()
	for deadline := time.Now().Add(time.Minute); !notices.has("first checkpoint"); {
		select {
		case <-went:
			t.Fatal("a batch with a shell command went on while the baseline was blocked")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch neither waited with a notice nor went on")
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(storeDir, "manifests", "*.ahead")); len(ents) != 0 {
		t.Errorf("saved ahead for a batch that waits: %v", ents)
	}
	unblock()
	<-went
}

func (s *syncBuffer) has(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.b.String(), text)
}
