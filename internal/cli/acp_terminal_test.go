package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// A client that offers terminals runs the shell commands ply would run
// unconfined: the call shows the terminal, the model gets its output and
// exit code, and the terminal is released. A read-only command ply
// confines stays ply's.
func TestACPClientTerminal(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_s", "run_shell_command", mustJSON(map[string]any{"command": "echo made > made.txt; echo hi from the terminal; exit 3"}))},
		fp.Turn{fp.Text("Ran it.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	r.client.terms = &fakeTerminals{byID: map[string]*fakeTerminal{}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSessionOffering(t, ctx, dir, sdk.ClientCapabilities{Terminal: true})
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("run it")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	r.client.mu.Lock()
	created, released := r.client.terms.created, r.client.terms.released
	r.client.mu.Unlock()
	if len(created) != 1 || created[0].Cwd == nil || *created[0].Cwd != dir || !strings.Contains(strings.Join(created[0].Args, " "), "exit 3") {
		t.Fatalf("terminal/create requests: %+v", created)
	}
	if len(released) != 1 {
		t.Errorf("released terminals: %q", released)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(b) != "made\n" {
		t.Errorf("the command did not run in the terminal: %q", b)
	}
	got := r.client.seen()
	if !strings.Contains(got, `"type":"terminal"`) || !strings.Contains(got, `"terminalId":"term-1"`) {
		t.Errorf("the call does not show the terminal:\n%s", got)
	}
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Raw); !strings.Contains(last, "hi from the terminal") || !strings.Contains(last, "Exit code: 3") {
		t.Errorf("the model did not get the terminal's output: %s", last)
	}
}

// Cancelling a prompt whose command runs in the client's terminal kills
// that command and releases the terminal.
func TestACPCancelClientTerminal(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_s", "run_shell_command", mustJSON(map[string]any{"command": "sleep 30; echo late > late.txt"}))},
		fp.Turn{fp.Text("after")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"), "--yolo")
	r.client.terms = &fakeTerminals{byID: map[string]*fakeTerminal{}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSessionOffering(t, ctx, dir, sdk.ClientCapabilities{Terminal: true})
	r.cancelWhen(ctx, ns.SessionId, func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && strings.Contains(mustJSON(u.ToolCallUpdate.Content), `"terminal"`)
	})
	start := time.Now()
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("wait")}})
	if err != nil || resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the terminal's command was not stopped: the prompt took %v", d)
	}
	r.client.mu.Lock()
	released := r.client.terms.released
	r.client.mu.Unlock()
	if len(released) != 1 {
		t.Errorf("released terminals: %q", released)
	}
}
