package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// answerCanUseTool waits for the next can_use_tool request, checks it is
// for tool, and answers it with response.
func (p *sdkPeer) answerCanUseTool(tool string, response map[string]any) {
	p.t.Helper()
	req := p.next("control_request", nil)
	r := req["request"].(map[string]any)
	if r["subtype"] != "can_use_tool" || r["tool_name"] != tool {
		p.t.Fatalf("control request %v, want can_use_tool for %s", req, tool)
	}
	p.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req["request_id"], "response": response}})
}

// toolOutputs maps each call id to the tool result the model received.
func toolOutputs(srv *fp.Server) map[string]string {
	out := map[string]string{}
	for _, req := range srv.Requests() {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				out[m.ToolCallID] = m.Text()
			}
		}
	}
	return out
}

// A can_use_tool "allow" with updatedInput runs the call with the
// client's arguments, not the model's; rewritten arguments that break the
// tool's schema or a deny rule are refused, never run.
func TestSDKCanUseToolUpdatedInputReplacesTheArguments(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"),
		[]byte(`{"permissions":{"deny":["run_shell_command(rm *)"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"touch original.txt"}`)},
		fp.Turn{fp.ToolCall("s2", "run_shell_command", `{"command":"touch second.txt"}`)},
		fp.Turn{fp.ToolCall("s3", "run_shell_command", `{"command":"touch third.txt"}`)},
		fp.Turn{fp.Text("done")},
	)
	p, code := startSDKHome(t, dir, home, srv)
	p.send(userMsg("make files"))
	p.answerCanUseTool("run_shell_command", map[string]any{"behavior": "allow",
		"updatedInput": map[string]any{"command": "echo SANITIZED > sanitized.txt"}})
	// A rewrite into a denied command.
	p.answerCanUseTool("run_shell_command", map[string]any{"behavior": "allow",
		"updatedInput": map[string]any{"command": "rm keep.txt"}})
	// A rewrite that does not fit the tool's schema.
	p.answerCanUseTool("run_shell_command", map[string]any{"behavior": "allow",
		"updatedInput": map[string]any{"command": 5}})
	if res := p.next("result", nil); res["subtype"] != "success" {
		t.Fatalf("result %v", res)
	}
	if c := p.exitOf(code); c != 0 {
		t.Fatalf("exit %d", c)
	}

	if b, err := os.ReadFile(filepath.Join(dir, "sanitized.txt")); err != nil || strings.TrimSpace(string(b)) != "SANITIZED" {
		t.Errorf("the sanitized command did not run: %q, %v", b, err)
	}
	for _, f := range []string{"original.txt", "second.txt", "third.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("the model's own command ran: %s exists", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Errorf("the denied rewrite ran: %v", err)
	}
	outs := toolOutputs(srv)
	if !strings.Contains(outs["s2"], "denied by rule") || !strings.Contains(outs["s2"], "rewrote") {
		t.Errorf("the denied rewrite's result = %q, want it to name the rewrite and the deny rule", outs["s2"])
	}
	if !strings.Contains(outs["s3"], "rewrote") || !strings.Contains(outs["s3"], "invalid") {
		t.Errorf("the invalid rewrite's result = %q, want it to say the rewritten arguments are invalid", outs["s3"])
	}
}

// The SDK's own MCP servers follow the same rule: a readOnlyHint is put
// to canUseTool, and the SDK caller's "trust" runs the server's tools
// unasked, read-only or not.
func TestSDKMCPServerTrust(t *testing.T) {
	for _, trust := range []bool{false, true} {
		srv := fp.New(t,
			fp.Turn{fp.ToolCall("c1", "mcp__kb__lookup", `{"key":"colour"}`)},
			fp.Turn{fp.Text("looked up")},
		)
		p, code := startSDK(t, t.TempDir(), srv)
		kb := hintedServer(t, trust)
		if trust {
			kb["env"] = map[string]string{mcpServerEnv: "1"} // no hint
		}
		r := p.control("init", map[string]any{"subtype": "initialize", "mcpServers": map[string]any{"kb": kb}})
		if r["subtype"] != "success" {
			t.Fatalf("initialize answered %v", r)
		}
		p.send(userMsg("look it up"))
		if !trust {
			p.answerCanUseTool("mcp__kb__lookup", map[string]any{"behavior": "deny", "message": "not now"})
		}
		// An unexpected can_use_tool request would come before the result
		// and fail the wait on it below.
		var seen []map[string]any
		if res := p.next("result", &seen); res["subtype"] != "success" {
			t.Fatalf("trust %v: result %v", trust, res)
		}
		for _, m := range seen {
			if m["type"] == "control_request" {
				t.Errorf("trust %v: unexpected control request %v", trust, m)
			}
		}
		want := "value of colour"
		if !trust {
			want = "not now"
		}
		if out := toolOutputs(srv)["c1"]; !strings.Contains(out, want) {
			t.Errorf("trust %v: the call answered %q, want %q", trust, out, want)
		}
		p.exitOf(code)
	}
}
