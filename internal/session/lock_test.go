package session

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// TestOneWriterPerSession: while a Writer holds a session, a second Open
// of it is refused with the holder's pid; Fork copies it under a new id
// meanwhile; Close lets the next Open in.
func TestOneWriterPerSession(t *testing.T) {
	home, ws, w := newSession(t, "s1")
	for _, m := range realistic() {
		w.Append(m)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}

	_, _, err := Open(w.Path())
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second Open of a held session: err = %v, want a HeldError", err)
	}
	if held.PID != os.Getpid() || held.ID != "s1" {
		t.Errorf("HeldError = %+v, want pid %d and id s1", held, os.Getpid())
	}
	if msg := err.Error(); !strings.Contains(msg, "s1") || !strings.Contains(msg, "pid") {
		t.Errorf("message %q does not name the session and the pid", msg)
	}

	f, tr, err := Fork(home, ws, w.Path(), "s2", "m2")
	if err != nil {
		t.Fatalf("Fork of a held session: %v", err)
	}
	if tr.Meta.ID != "s2" || f.Meta().ForkedFrom != "s1" {
		t.Errorf("fork meta %+v", f.Meta())
	}
	wantHistory(t, tr.History, realistic())
	f.Append(user(text("only in the fork")))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	forked, err := Load(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(forked.Warnings) > 0 || len(forked.History) != len(realistic())+1 {
		t.Errorf("fork reloads with %d entries, warnings %v", len(forked.History), forked.Warnings)
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, tr2, err := Open(w.Path())
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer w2.Close()
	wantHistory(t, tr2.History, realistic())
	if _, _, err := Fork(home, ws, w.Path(), "s2", "m2"); err == nil {
		t.Error("Fork onto an existing id succeeded")
	}
}

func wantHistory(t *testing.T, got, want []llm.Message) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history has %d entries, want %d (or they differ)", len(got), len(want))
	}
}

// TestForkLeavesOutALineBeingWritten: the holder may be halfway through
// a line when Fork reads; the copy ends at the last whole line.
func TestForkLeavesOutALineBeingWritten(t *testing.T) {
	home, ws, w := newSession(t, "src")
	want := realistic()[:2]
	for _, m := range want {
		w.Append(m)
	}
	mustClose(t, w)
	appendRaw(t, w.Path(), `{"type":"entry","message":{"role":"user","par`)
	f, tr, err := Fork(home, ws, w.Path(), "dst", "m")
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, f)
	wantHistory(t, tr.History, want)
	got := mustLoad(t, f.Path())
	noWarnings(t, got)
	wantHistory(t, got.History, want)
}
