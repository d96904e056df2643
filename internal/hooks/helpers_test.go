package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

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

// echoTool stands in for ply's shell tool: it returns its command.
type echoTool struct{ name string }

func (t echoTool) Name() string        { return t.name }
func (t echoTool) Description() string { return "echo" }
func (t echoTool) Kind() tools.Kind    { return tools.KindExecute }
func (t echoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)
}

func (t echoTool) Execute(_ context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct{ Command string }
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Output: "ran: " + p.Command}, nil
}

func shellReq(id, command string) scheduler.Request {
	args, _ := json.Marshal(map[string]string{"command": command})
	return scheduler.Request{CallID: id, Name: "run_shell_command", Args: string(args)}
}

// approver answers the scheduler's approval requests with a function.
type approver func(c *scheduler.Call) scheduler.Decision

func (a approver) Approve(_ context.Context, c *scheduler.Call) (scheduler.Decision, error) {
	return a(c), nil
}
