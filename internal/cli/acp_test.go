package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// acpClient is the editor's side of the test: it records every session
// update and answers permission requests with grant.
type acpClient struct {
	mu      sync.Mutex
	updates []string // each update as JSON
	asked   []sdk.RequestPermissionRequest
	grant   sdk.PermissionOptionId
	// onUpdate, when set, sees every update as it comes.
	onUpdate func(sdk.SessionUpdate)
	// buffers, when set, are the editor's open files: the client offers
	// its file system, reads see them, writes change them (recorded in
	// reads and wrote).
	buffers map[string]string
	reads   []string
	wrote   []string
	// terms, when set, are its terminals: the client offers them.
	terms *fakeTerminals
}

func (c *acpClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	b, err := json.Marshal(n.Update)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.updates = append(c.updates, string(b))
	f := c.onUpdate
	c.mu.Unlock()
	if f != nil {
		f(n.Update)
	}
	return nil
}

func (c *acpClient) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, r)
	grant := c.grant
	c.mu.Unlock()
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(grant)}, nil
}

// seen returns the updates recorded so far and forgets them.
func (c *acpClient) seen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.Join(c.updates, "\n")
	c.updates = nil
	return s
}

func (c *acpClient) ReadTextFile(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buffers == nil {
		return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
	}
	c.reads = append(c.reads, r.Path)
	if b, ok := c.buffers[r.Path]; ok {
		return sdk.ReadTextFileResponse{Content: b}, nil
	}
	b, err := os.ReadFile(r.Path)
	return sdk.ReadTextFileResponse{Content: string(b)}, err
}
func (c *acpClient) WriteTextFile(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buffers == nil {
		return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
	}
	c.buffers[r.Path] = r.Content
	c.wrote = append(c.wrote, r.Path)
	return sdk.WriteTextFileResponse{}, nil
}
func (c *acpClient) CreateTerminal(_ context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms == nil {
		return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
	}
	return c.terms.create(r), nil
}
func (c *acpClient) KillTerminal(_ context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := c.terminal(r.TerminalId)
	if err == nil {
		t.kill()
	}
	return sdk.KillTerminalResponse{}, err
}
func (c *acpClient) TerminalOutput(_ context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.terminal(r.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	return sdk.TerminalOutputResponse{Output: t.out.String()}, nil
}
func (c *acpClient) ReleaseTerminal(_ context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := c.terminal(r.TerminalId)
	if err == nil {
		t.kill()
		c.mu.Lock()
		c.terms.released = append(c.terms.released, r.TerminalId)
		c.mu.Unlock()
	}
	return sdk.ReleaseTerminalResponse{}, err
}
func (c *acpClient) WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := c.terminal(r.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
		return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(t.cmd.ProcessState.ExitCode())}, nil
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (c *acpClient) terminal(id string) (*fakeTerminal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms == nil || c.terms.byID[id] == nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "no terminal " + id})
	}
	return c.terms.byID[id], nil
}

// fakeTerminals are an editor's terminals: each runs its command here and
// keeps its output.
type fakeTerminals struct {
	byID     map[string]*fakeTerminal
	created  []sdk.CreateTerminalRequest
	released []string
}

type fakeTerminal struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
}

func (f *fakeTerminals) create(r sdk.CreateTerminalRequest) sdk.CreateTerminalResponse {
	t := &fakeTerminal{cmd: exec.Command(r.Command, r.Args...), done: make(chan struct{})}
	if r.Cwd != nil {
		t.cmd.Dir = *r.Cwd
	}
	t.cmd.Stdout, t.cmd.Stderr = &t.out, &t.out
	// Its own process group, so that kill ends what the command started
	// too: a child left holding the output pipe would keep Wait waiting.
	sandboxtest.NewGroup(t.cmd)
	id := fmt.Sprintf("term-%d", len(f.created)+1)
	f.created = append(f.created, r)
	f.byID[id] = t
	if err := t.cmd.Start(); err != nil {
		fmt.Fprintf(&t.out, "cannot start: %v", err)
		close(t.done)
		return sdk.CreateTerminalResponse{TerminalId: id}
	}
	go func() { t.cmd.Wait(); close(t.done) }()
	return sdk.CreateTerminalResponse{TerminalId: id}
}

func (t *fakeTerminal) kill() {
	select {
	case <-t.done:
	default:
		_ = sandboxtest.KillGroup(t.cmd.Process.Pid)
		<-t.done
	}
}

// acpRun is ply --acp running in-process, connected to a client.
type acpRun struct {
	conn   *sdk.ClientSideConnection
	client *acpClient
	in     *io.PipeWriter // ply's stdin
	out    *syncBuffer    // all ply wrote to stdout
	stderr *syncBuffer
	code   chan int
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newSession initializes the connection and opens a session in dir.
func (r *acpRun) newSession(t *testing.T, ctx context.Context, dir string) sdk.NewSessionResponse {
	t.Helper()
	return r.newSessionOffering(t, ctx, dir, sdk.ClientCapabilities{})
}

// newSessionOffering is newSession by a client that offers caps.
func (r *acpRun) newSessionOffering(t *testing.T, ctx context.Context, dir string, caps sdk.ClientCapabilities) sdk.NewSessionResponse {
	t.Helper()
	if _, err := r.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	ns, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// cancelWhen sends session/cancel once an update satisfies seen.
func (r *acpRun) cancelWhen(ctx context.Context, id sdk.SessionId, seen func(sdk.SessionUpdate) bool) {
	ready := make(chan struct{})
	var once sync.Once
	r.client.mu.Lock()
	r.client.onUpdate = func(u sdk.SessionUpdate) {
		if seen(u) {
			once.Do(func() { close(ready) })
		}
	}
	r.client.mu.Unlock()
	go func() {
		select {
		case <-ready:
			_ = r.conn.Cancel(ctx, sdk.CancelNotification{SessionId: id})
		case <-ctx.Done():
		}
	}()
}

func startACP(t *testing.T, srv *fp.Server, home string, args ...string) *acpRun {
	t.Helper()
	env := map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": srv.URL,
		"PLY_HOME": home, "PLY_RETRY_DELAY_SCALE": "0.001",
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &acpRun{client: &acpClient{grant: "allow_once"}, in: inW, out: &syncBuffer{}, stderr: &syncBuffer{}, code: make(chan int, 1)}
	go func() {
		code := Main(context.Background(), append([]string{"--acp"}, args...), IO{
			Stdin: inR, Stdout: outW, Stderr: r.stderr,
			Getenv: func(k string) string { return env[k] }, Cwd: t.TempDir(),
		})
		outW.Close()
		r.code <- code
	}()
	r.conn = sdk.NewClientSideConnection(r.client, inW, io.TeeReader(outR, r.out))
	t.Cleanup(func() {
		inW.Close()
		select {
		case code := <-r.code:
			if code != 0 {
				t.Errorf("ply --acp exited %d; stderr:\n%s", code, r.stderr.String())
			}
		case <-time.After(20 * time.Second):
			t.Error("ply --acp did not exit when its input closed")
		}
	})
	return r
}

func TestACPSession(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("hello acp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.Thought("let me look"), fp.ToolCall("call_r", "read_file", mustJSON(map[string]any{"file_path": file}))},
		fp.Turn{fp.Text("It says hello.")},
		fp.Turn{fp.ToolCall("call_e", "edit", mustJSON(map[string]any{"file_path": file, "old_string": "hello acp", "new_string": "bye acp"}))},
		fp.Turn{fp.Text("Edited.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	init, err := r.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext || !init.AgentCapabilities.LoadSession {
		t.Errorf("initialize answered %+v", init)
	}
	if _, err := r.conn.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "none"}); err != nil {
		t.Errorf("authenticate: %v", err)
	}
	ns, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if ns.Modes == nil || ns.Modes.CurrentModeId != "default" || len(ns.Modes.AvailableModes) != 5 {
		t.Errorf("session/new modes = %+v", ns.Modes)
	}

	// A prompt that reads: the call is reported, runs unasked, completes.
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("what does notes.txt say?")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	got := r.client.seen()
	for _, want := range []string{
		`"sessionUpdate":"agent_thought_chunk"`, `let me look`,
		`"sessionUpdate":"tool_call"`, `"toolCallId":"call_r"`, `"kind":"read"`, `"locations":[{"path":"` + file + `"}]`,
		`"status":"in_progress"`, `"status":"completed"`, `hello acp`,
		`"sessionUpdate":"agent_message_chunk"`, `It says hello.`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("updates lack %s:\n%s", want, got)
		}
	}
	if len(r.client.asked) != 0 {
		t.Errorf("a read asked for permission: %+v", r.client.asked)
	}

	// An edit asks; the client allows it once; the file changes and the
	// update carries the diff.
	resp, err = r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("say bye")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	if len(r.client.asked) != 1 || r.client.asked[0].ToolCall.ToolCallId != "call_e" || len(r.client.asked[0].Options) != 3 {
		t.Fatalf("permission requests: %+v", r.client.asked)
	}
	if b, _ := os.ReadFile(file); string(b) != "bye acp\n" {
		t.Errorf("file after the allowed edit: %q", b)
	}
	got = r.client.seen()
	for _, want := range []string{`"kind":"edit"`, `"type":"diff"`, `"oldText":"hello acp"`, `"newText":"bye acp"`, `"status":"completed"`, `Edited.`} {
		if !strings.Contains(got, want) {
			t.Errorf("updates lack %s:\n%s", want, got)
		}
	}
	if strings.Contains(r.stderr.String(), "panic") {
		t.Errorf("stderr: %s", r.stderr.String())
	}
}

func TestACPRejectedEdit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(file, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_w", "write_file", mustJSON(map[string]any{"file_path": file, "content": "gone\n"}))},
		fp.Turn{fp.Text("Not written.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	r.client.grant = "reject_once"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("overwrite it")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep\n" {
		t.Errorf("the rejected write changed the file: %q", b)
	}
	if got := r.client.seen(); !strings.Contains(got, `"status":"failed"`) {
		t.Errorf("the rejected call is not reported failed:\n%s", got)
	}
}

func TestACPCancel(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.Text("working on it"), fp.Stall(time.Minute), fp.Text(" never")},
		fp.Turn{fp.Text("after")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	r.cancelWhen(ctx, ns.SessionId, func(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
	start := time.Now()
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("take your time")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", resp.StopReason)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the cancelled prompt took %v", d)
	}
	// The session goes on after a cancellation.
	resp, err = r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("again")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after cancel: %+v, %v", resp, err)
	}
}

func TestACPMalformedMessage(t *testing.T) {
	srv := fp.New(t)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.in.Write([]byte("{not json\n[1,2]\n")); err != nil {
		t.Fatal(err)
	}
	// The connection still works afterwards.
	if _, err := r.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize after a malformed line: %v", err)
	}
	out := r.out.String()
	for _, want := range []string{`"code":-32700`, `"code":-32600`} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks the error %s:\n%s", want, out)
		}
	}
	// Unknown method: the protocol layer's method-not-found error.
	if _, err := r.conn.CallExtension(ctx, "_nope/nothing", map[string]any{}); err == nil {
		t.Error("an unknown method succeeded")
	}
}

func TestACPSetModeAndPlan(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "new.txt")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_t", "todo_write", mustJSON(map[string]any{"todos": []map[string]string{
			{"id": "1", "content": "write the file", "status": "in_progress"}}}))},
		fp.Turn{fp.ToolCall("call_w", "write_file", mustJSON(map[string]any{"file_path": file, "content": "made\n"}))},
		fp.Turn{fp.Text("Written.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	r.client.grant = "reject_once" // yolo must not ask at all
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "nonsense"}); err == nil {
		t.Error("an unknown mode was taken")
	}
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "yolo"}); err != nil {
		t.Fatalf("session/set_mode: %v", err)
	}
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("make it")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	if len(r.client.asked) != 0 {
		t.Errorf("yolo asked: %+v", r.client.asked)
	}
	if b, _ := os.ReadFile(file); string(b) != "made\n" {
		t.Errorf("file: %q", b)
	}
	if got := r.client.seen(); !strings.Contains(got, `"sessionUpdate":"plan"`) || !strings.Contains(got, `"content":"write the file","priority":"medium","status":"in_progress"`) {
		t.Errorf("no plan update from todo_write:\n%s", got)
	}
}

func TestACPCancelRunningTool(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_s", "run_shell_command", mustJSON(map[string]any{"command": "sleep 30"}))},
		fp.Turn{fp.Text("after")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	r.cancelWhen(ctx, ns.SessionId, func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusInProgress
	})
	start := time.Now()
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("wait")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", resp.StopReason)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the command was not stopped: the prompt took %v", d)
	}
	if got := r.client.seen(); !strings.Contains(got, `"status":"failed"`) {
		t.Errorf("the cancelled call is not reported failed:\n%s", got)
	}
}
