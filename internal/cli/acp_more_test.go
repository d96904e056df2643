package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

func TestACPLoadSession(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("hello acp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_r", "read_file", mustJSON(map[string]any{"file_path": file}))},
		fp.Turn{fp.Text("It says hello.")},
		fp.Turn{fp.When("and now?"), fp.Text("Still hello.")},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	first := startACP(t, srv, home)
	init, err := first.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize: %+v, %v", init, err)
	}
	ns, err := first.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("read notes.txt")}}); err != nil {
		t.Fatal(err)
	}
	// The first process holds the session: another cannot load it.
	second := startACP(t, srv, home)
	if _, err := second.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("a session open in another process was loaded")
	}
	first.in.Close()
	select {
	case <-first.code:
	case <-time.After(20 * time.Second):
		t.Fatal("the first process did not exit")
	}
	first.code <- 0 // for its cleanup

	list, err := second.conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &dir})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != ns.SessionId || list.Sessions[0].Title == nil ||
		*list.Sessions[0].Title != "read notes.txt" || list.Sessions[0].UpdatedAt == nil {
		t.Errorf("session/list = %+v", list.Sessions)
	}

	if _, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	got := second.client.seen()
	for _, want := range []string{
		`"sessionUpdate":"user_message_chunk"`, `read notes.txt`,
		`"sessionUpdate":"tool_call"`, `"toolCallId":"call_r"`, `"status":"completed"`, `hello acp`,
		`"sessionUpdate":"agent_message_chunk"`, `It says hello.`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("replay lacks %s:\n%s", want, got)
		}
	}
	resp, err := second.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("and now?")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt in the loaded session: %+v, %v", resp, err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var all strings.Builder
	for i := range last.Messages {
		all.WriteString(last.Messages[i].Text())
	}
	if !strings.Contains(all.String(), "It says hello.") {
		t.Errorf("the loaded session's request lacks the earlier history: %s", all.String())
	}
}

func TestACPClientMCPServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_m", "mcp__kb__lookup", `{"key":"colour"}`)},
		fp.Turn{fp.Text("Found it.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init, err := r.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.McpCapabilities.Http {
		t.Fatalf("initialize: %+v, %v", init, err)
	}
	ns, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{{Stdio: &sdk.McpServerStdio{
		Name: "kb", Command: exe, Args: []string{}, Env: []sdk.EnvVariable{{Name: mcpServerEnv, Value: "1"}},
	}}}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("look up colour")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	if got := r.client.seen(); !strings.Contains(got, "value of colour") {
		t.Errorf("the client's MCP server did not answer:\n%s", got)
	}
	if len(r.client.asked) != 1 {
		t.Errorf("an untrusted client server's tool ran with %d permission requests", len(r.client.asked))
	}
}

// TestACPStdoutIsProtocol: every line ply writes to stdout in --acp mode
// is a JSON-RPC 2.0 message.
func TestACPStdoutIsProtocol(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("hi")})
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.out.String()), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("stdout line is not a JSON-RPC message: %q", line)
		}
	}
}

func TestACPExitPlanModeTellsTheClient(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_p", "exit_plan_mode", `{"plan":"1. do it"}`)},
		fp.Turn{fp.Text("Plan approved.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"), "--approval-mode", "plan")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	if ns.Modes.CurrentModeId != "plan" {
		t.Errorf("current mode %q, want plan", ns.Modes.CurrentModeId)
	}
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("plan it")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	if len(r.client.asked) != 1 || len(r.client.asked[0].ToolCall.Content) != 1 ||
		r.client.asked[0].ToolCall.Content[0].Content == nil || r.client.asked[0].ToolCall.Content[0].Content.Content.Text.Text != "1. do it" {
		t.Errorf("the approval does not show the plan: %+v", r.client.asked)
	}
	got := r.client.seen()
	if !strings.Contains(got, `{"currentModeId":"default","sessionUpdate":"current_mode_update"}`) {
		t.Errorf("no current_mode_update to default:\n%s", got)
	}
	// A client that uses config options sees the mode change there too.
	if !strings.Contains(got, `"sessionUpdate":"config_option_update"`) || !strings.Contains(got, `"currentValue":"default","id":"mode"`) {
		t.Errorf("no config_option_update with the mode default:\n%s", got)
	}
}

// cancellingClient cancels the prompt when it is asked for permission,
// and answers the request only when ply withdraws it.
type cancellingClient struct {
	*acpClient
	cancel func()
}

func (c cancellingClient) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.cancel()
	<-ctx.Done()
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func TestACPCancelWhileAsking(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(file, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_w", "write_file", mustJSON(map[string]any{"file_path": file, "content": "gone\n"}))},
	)
	env := map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": srv.URL,
		"PLY_HOME": filepath.Join(t.TempDir(), "home"), "PLY_RETRY_DELAY_SCALE": "0.001",
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Main(context.Background(), []string{"--acp"}, IO{Stdin: inR, Stdout: outW, Stderr: io.Discard,
			Getenv: func(k string) string { return env[k] }, Cwd: dir})
		outW.Close()
		done <- code
	}()
	defer func() {
		inW.Close()
		if code := <-done; code != 0 {
			t.Errorf("exit %d", code)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var conn *sdk.ClientSideConnection
	var sid sdk.SessionId
	cc := cancellingClient{acpClient: &acpClient{}, cancel: func() {
		_ = conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid})
	}}
	conn = sdk.NewClientSideConnection(cc, inW, outR)
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	sid = ns.SessionId
	resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("overwrite")}})
	if err != nil || resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep\n" {
		t.Errorf("the file changed: %q", b)
	}
}

func TestACPStopReasons(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"model":{"maxToolCallsPerTurn":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.Text("no"), fp.Finish("content_filter")},
		fp.Turn{fp.ToolCall("g1", "glob", `{"pattern":"*"}`), fp.ToolCall("g2", "glob", `{"pattern":"*.go"}`)},
	)
	r := startACP(t, srv, home)
	// Reaching the per-turn cap asks the client whether to go on; it
	// declines.
	r.client.grant = "reject_once"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	// max_tokens is tested in internal/acp: ply's client continues a cut
	// reply by itself, so it reaches the loop only when that gives up.
	for _, want := range []sdk.StopReason{sdk.StopReasonRefusal, sdk.StopReasonMaxTurnRequests} {
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		if err != nil {
			t.Fatalf("prompt for %s: %v", want, err)
		}
		if resp.StopReason != want {
			t.Errorf("stop reason %q, want %q", resp.StopReason, want)
		}
	}
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	if n := len(r.client.asked); n != 1 || !strings.Contains(*r.client.asked[0].ToolCall.Title, "another 1 tool calls") {
		t.Errorf("the client was asked %d times (%+v), want once whether to allow another 1 tool calls", n, r.client.asked)
	}
}

func TestACPLiveShellOutput(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"echo first-line; sleep 1; echo second-line"}`)},
		fp.Turn{fp.Text("ran")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"), "--yolo")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("run it")}}); err != nil {
		t.Fatal(err)
	}
	live := false
	for _, u := range strings.Split(r.client.seen(), "\n") {
		if strings.Contains(u, `"sessionUpdate":"tool_call_update"`) && strings.Contains(u, "first-line") &&
			!strings.Contains(u, "second-line") && !strings.Contains(u, `"status"`) {
			live = true
		}
	}
	if !live {
		t.Error("no live update with the command's first line while it ran")
	}
}

func TestACPImageAndResourcePrompt(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("seen")})
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	_, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"),
		sdk.ImageBlock("aGk=", "image/png"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///buf.go", Text: "package unsaved"}}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	raw := string(srv.Requests()[0].Raw)
	for _, want := range []string{"data:image/png;base64,aGk=", "package unsaved", "file:///buf.go"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the request lacks %s:\n%s", want, raw)
		}
	}
}

// TestACPAnswersBeforeExit: a client that writes its requests and closes
// its end still gets every answer.
func TestACPAnswersBeforeExit(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "PLY_HOME": filepath.Join(t.TempDir(), "home")}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":"two","method":"session/new","params":{"cwd":"` + t.TempDir() + `","mcpServers":[]}}`,
	}, "\n") + "\n"
	out := &syncBuffer{}
	code := Main(context.Background(), []string{"--acp"}, IO{Stdin: strings.NewReader(in), Stdout: out, Stderr: io.Discard,
		Getenv: func(k string) string { return env[k] }, Cwd: t.TempDir()})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := out.String()
	for _, want := range []string{`"id":1,"result":{"agentCapabilities"`, `"id":"two","result":{`} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout lacks %s:\n%s", want, got)
		}
	}
}
