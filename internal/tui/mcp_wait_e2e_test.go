package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/mcp/mcptest"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// gatedMCP is an MCP server that answers once release is closed.
func gatedMCP(t *testing.T, release <-chan struct{}) string { return mcptest.Gated(t, release) }

// TestTmuxMCPConnectsBehindInput: with an MCP server that has not
// answered yet, the input is usable at once and the footer names the
// server; a prompt sent meanwhile says it goes without its tools, and its
// request lacks them; once the server answers, the footer line goes and
// the next request offers its tools.
func TestTmuxMCPConnectsBehindInput(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	release := make(chan struct{})
	url := gatedMCP(t, release)
	dir := t.TempDir()
	conf := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(conf, []byte(`{"mcpServers":{"slow":{"type":"http","url":"`+url+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t, fp.Turn{fp.Text("first answer")}, fp.Turn{fp.Text("second answer")})
	x := startPly(t, bin, dir, srv, 100, 24, []string{"NO_COLOR=1"}, "--mcp-config", conf)
	// A failing check must not leave ply waiting on the server: it answers
	// before ply is stopped.
	var once sync.Once
	answer := func() { once.Do(func() { close(release) }) }
	t.Cleanup(answer)
	s := x.waitFor("test-model · default mode")
	if !strings.Contains(s, "connecting MCP servers: slow") {
		t.Fatalf("the footer does not name the server still connecting:\n%s", s)
	}
	x.submit("hello")
	s = x.waitFor("first answer")
	if !strings.Contains(s, "MCP servers still connecting: slow") {
		t.Fatalf("the prompt did not say it goes without the server's tools:\n%s", s)
	}
	answer()
	x.waitGone("connecting MCP servers")
	x.submit("again")
	x.waitFor("second answer")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if strings.Contains(string(reqs[0].Raw), "mcp__slow__lookup") {
		t.Error("the first request offered a tool of a server not yet connected")
	}
	if !strings.Contains(string(reqs[1].Raw), "mcp__slow__lookup") {
		t.Error("the request after the server connected lacks its tool")
	}
}
