package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func text(s string) llm.Part { return llm.Part{Text: s} }

func user(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleUser, Parts: parts} }

func model(fr llm.FinishReason, parts ...llm.Part) llm.Message {
	return llm.Message{Role: llm.RoleModel, Parts: parts, FinishReason: fr,
		Usage: &llm.Usage{InputTokens: 1200, OutputTokens: 85, CachedTokens: 1024, TotalTokens: 1285}}
}

func call(id, name, args string) llm.Part {
	return llm.Part{Call: &llm.FunctionCall{ID: id, Name: name, Args: args}}
}

func resp(id, name, out string, media ...llm.Media) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: id, Name: name, Output: out, Media: media}}
}

// realistic is a short session of the shapes ply records: a prompt with a
// reminder, a reply with a thought and parallel calls, their results (one
// with an image, one an error), a reply cut by the token limit, and a
// reply abandoned mid-stream (no finish reason, no usage).
func realistic() []llm.Message {
	png := llm.Media{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}
	return []llm.Message{
		user(text("<system-reminder>Today is Monday.</system-reminder>"), text("Fix the failing test in <pkg/a> & explain \"why\".\n")),
		model(llm.FinishToolCalls,
			llm.Part{Text: "The test probably reads a stale file.", Thought: true, Signature: "sig-1"},
			text("Let me look."),
			call("call_1", "read_file", `{"path":"pkg/a/a_test.go"}`),
			call("call_2", "read_file", `{"path":"docs/diagram.png"}`),
			call("call_3", "run_shell_command", `{"command":"go test ./pkg/a`), // truncated args stay as produced
		),
		user(
			resp("call_1", "read_file", "package a\n\nfunc TestA(t *testing.T) {}\n"),
			resp("call_2", "read_file", "Read image docs/diagram.png", png),
			llm.Part{Response: &llm.FunctionResponse{ID: "call_3", Name: "run_shell_command", Output: "invalid arguments: unexpected end of JSON input", IsError: true}},
		),
		model(llm.FinishMaxTokens, text("The fix is — ")),
		user(text("go on"), llm.Part{Media: &png}),
		{Role: llm.RoleModel, Parts: []llm.Part{text("Sure, the cause is")}},
	}
}

func newSession(t testing.TB, id string) (home, ws string, w *Writer) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	w, err := Create(home, ws, id, "qwen3-coder-plus")
	if err != nil {
		t.Fatal(err)
	}
	return home, ws, w
}

func mustClose(t testing.TB, w *Writer) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t testing.TB, path string) *Transcript {
	t.Helper()
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func noWarnings(t testing.TB, tr *Transcript) {
	t.Helper()
	for _, w := range tr.Warnings {
		t.Errorf("unexpected warning: %s", w)
	}
}

func appendRaw(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(b), "\n")
}

// insertLine puts s as line n (1-based) of the file.
func insertLine(t testing.TB, path string, n int, s string) {
	t.Helper()
	lines := readLines(t, path)
	lines = append(lines[:n-1], append([]string{s + "\n"}, lines[n-1:]...)...)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func sessionsDir(t testing.TB, home, ws string) string {
	t.Helper()
	d, err := ProjectDir(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func hasWarning(tr *Transcript, line int, substr string) bool {
	for _, w := range tr.Warnings {
		if w.Line == line && strings.Contains(w.Msg, substr) && w.Path == tr.Path &&
			strings.Contains(w.String(), filepath.Base(tr.Path)) {
			return true
		}
	}
	return false
}
