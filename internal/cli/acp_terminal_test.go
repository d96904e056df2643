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

// useEditorTerminal picks the editor's terminal for the session's
// commands, as a client does on the user's word.
func (r *acpRun) useEditorTerminal(t *testing.T, ctx context.Context, id sdk.SessionId) {
	t.Helper()
	_, err := r.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: "terminal", Value: "editor"}})
	if err != nil {
		t.Fatalf("choosing the editor's terminal: %v", err)
	}
}

// A client that offers terminals and asked for them runs the shell
// commands ply would run unconfined: the call shows the terminal, the
// model gets its output and exit code, and the terminal is released. A
// read-only command ply confines stays ply's.
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
	r.useEditorTerminal(t, ctx, ns.SessionId)
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
	r.useEditorTerminal(t, ctx, ns.SessionId)
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

// A client that offers terminals but did not ask for them gets none:
// commands run in ply's own runner, which withholds secrets, while the
// editor's terminal would hand the command the editor's whole
// environment. The choice is a config option offered only to such a
// client, ply by default.
func TestACPCommandsRunInPlysRunnerUnlessAsked(t *testing.T) {
	t.Setenv("PLY_ACP_TEST_SECRET", "editor-secret")
	cmd := mustJSON(map[string]any{"command": `echo "secret=$PLY_ACP_TEST_SECRET" > env.txt`})
	for _, editor := range []bool{false, true} {
		dir := t.TempDir()
		srv := fp.New(t, fp.Turn{fp.ToolCall("call_s", "run_shell_command", cmd)}, fp.Turn{fp.Text("Ran it.")})
		r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
		r.client.terms = &fakeTerminals{byID: map[string]*fakeTerminal{}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		ns := r.newSessionOffering(t, ctx, dir, sdk.ClientCapabilities{Terminal: true})
		if o := mustJSON(ns.ConfigOptions); !strings.Contains(o, `"id":"terminal"`) || !strings.Contains(o, `"currentValue":"ply"`) {
			t.Errorf("config options %s: want the terminal option, ply by default", o)
		}
		if editor {
			r.useEditorTerminal(t, ctx, ns.SessionId)
		}
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("run it")}})
		cancel()
		if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt: %+v, %v", resp, err)
		}
		r.client.mu.Lock()
		created := len(r.client.terms.created)
		r.client.mu.Unlock()
		b, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
		switch {
		case !editor && (created != 0 || string(b) != "secret=\n"):
			t.Errorf("not asked: %d terminals created, env.txt %q; want none, and the secret withheld", created, b)
		case editor && (created != 1 || string(b) != "secret=editor-secret\n"):
			t.Errorf("asked: %d terminals created, env.txt %q; want one, with the editor's environment", created, b)
		}
	}
	// A client without terminals is offered no choice.
	srv := fp.New(t)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSessionOffering(t, ctx, t.TempDir(), sdk.ClientCapabilities{})
	if o := mustJSON(ns.ConfigOptions); strings.Contains(o, `"id":"terminal"`) {
		t.Errorf("config options %s: a client without terminals was offered the terminal option", o)
	}
}
