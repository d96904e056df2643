package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// env is a test workspace holding hook scripts, and what the runner
// reported.
type env struct {
	t   *testing.T
	dir string

	mu       sync.Mutex
	warnings []Warning
	messages []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	// Resolve symlinks so that it compares equal to the hooks' $PWD.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, dir: dir}
}

// script writes an executable bash script and returns its path, quoted
// for use as a hook command.
func (e *env) script(name, body string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return fmt.Sprintf("%q", p)
}

// runner builds a Runner for cfg in the workspace, recording its warnings
// and messages.
func (e *env) runner(cfg Config) *Runner {
	e.t.Helper()
	r, err := NewRunner(cfg, Options{
		Dir:            e.dir,
		SessionID:      "sess-1",
		TranscriptPath: "/tmp/transcript.jsonl",
		PermissionMode: "default",
		OnWarning: func(w Warning) {
			e.mu.Lock()
			e.warnings = append(e.warnings, w)
			e.mu.Unlock()
		},
		OnMessage: func(_, text string) {
			e.mu.Lock()
			e.messages = append(e.messages, text)
			e.mu.Unlock()
		},
	})
	if err != nil {
		e.t.Fatalf("NewRunner: %v", err)
	}
	return r
}

// one is a config with a single hook for event.
func one(event, matcher, command string, timeout time.Duration) Config {
	return Config{event: {{Matcher: matcher, Hooks: []Command{{Command: command, Timeout: timeout}}}}}
}

func (e *env) reported() []Warning {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Warning(nil), e.warnings...)
}

// readJSON decodes a file a hook wrote.
func (e *env) readJSON(name string) map[string]any {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatalf("hook did not write %s: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		e.t.Fatalf("%s: %v: %s", name, err, b)
	}
	return m
}

func (e *env) readFile(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatalf("hook did not write %s: %v", name, err)
	}
	return strings.TrimSpace(string(b))
}
