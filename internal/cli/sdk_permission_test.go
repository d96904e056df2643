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
