package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// mcpFlag configures the test binary as server "kb", and a server whose
// command does not exist.
func mcpFlag(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mustJSON(map[string]any{"mcpServers": map[string]any{
		"kb":      map[string]any{"command": exe, "env": map[string]string{mcpServerEnv: "1"}, "trust": true},
		"missing": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")},
	}})
}

func TestMCPToolsInASession(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "mcp__kb__lookup", `{"key":"colour"}`), fp.ToolCall("call_2", "mcp__kb__broken", `{}`)},
		fp.Turn{fp.When("value of colour"), fp.ToolCall("call_3", "mcp__kb__crash", `{}`)},
		fp.Turn{fp.ToolCall("call_4", "mcp__kb__lookup", `{"key":"again"}`)},
		fp.Turn{fp.Text("The server went away; I carried on.")},
	)
	// Not --yolo: the server is trusted, so its tools run without asking.
	r := runPly(t, t.TempDir(), srv, "", "-p", "use the knowledge base", "-o", "stream-json", "--mcp-config", mcpFlag(t))
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stderr, `MCP server "missing" is not available`) || strings.Count(r.stderr, `"missing"`) != 1 {
		t.Errorf("the failed server is not reported exactly once:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	first := string(reqs[0].Raw)
	for _, want := range []string{`"mcp__kb__lookup"`, `"mcp__kb__broken"`, `"required":["key"]`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request does not offer %s", want)
		}
	}
	results := map[string]string{}
	for _, req := range reqs {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				results[m.ToolCallID] = m.Text()
			}
		}
	}
	if results["call_1"] != "value of colour" {
		t.Errorf("lookup result = %q", results["call_1"])
	}
	if !strings.Contains(results["call_2"], "backend unavailable") {
		t.Errorf("broken result = %q", results["call_2"])
	}
	if !strings.Contains(results["call_3"], "kb") || !strings.Contains(strings.ToLower(results["call_3"]), "server") {
		t.Errorf("crash result = %q, want an error naming the server", results["call_3"])
	}
	if !strings.Contains(results["call_4"], "kb") || results["call_4"] == "value of again" {
		t.Errorf("a call after the crash = %q, want a clear error", results["call_4"])
	}
	lines := streamLines(t, r.stdout)
	init := lines[0]
	servers, _ := init["mcp_servers"].([]any)
	states := map[string]string{}
	for _, s := range servers {
		m := s.(map[string]any)
		states[m["name"].(string)] = m["status"].(string)
	}
	if states["kb"] != "connected" || states["missing"] != "failed" {
		t.Errorf("init mcp_servers = %v", servers)
	}
	if last := lines[len(lines)-1]; last["subtype"] != "success" {
		t.Errorf("result = %v", last)
	}
}

func TestMCPListCommand(t *testing.T) {
	var out, errb bytes.Buffer
	home := t.TempDir()
	sio := IO{Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "PLY_HOME" {
			return home
		}
		return ""
	}, Cwd: t.TempDir()}
	code := Main(context.Background(), []string{"mcp", "list", "--mcp-config", mcpFlag(t)}, sio)
	if code == 0 {
		t.Errorf("exit 0 although a server failed")
	}
	for _, want := range []string{"kb (stdio", "connected, 3 tools", "mcp__kb__lookup - Look a key up.", "missing (stdio", "failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := Main(context.Background(), []string{"mcp", "lst"}, sio); code != 42 || !strings.Contains(errb.String(), "usage: ply mcp list") {
		t.Errorf("bad subcommand: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := Main(context.Background(), []string{"mcp", "list", "--mcp-config", `{"mcpServers":{"x":{}}}`}, sio); code != 52 || !strings.Contains(errb.String(), "x") {
		t.Errorf("bad config: exit %d, %s", code, errb.String())
	}
}
