package core

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/mcp/mcptest"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/tools"
)

// gatedMCP is an MCP server that answers once release is closed.
func gatedMCP(t *testing.T, release <-chan struct{}) string { return mcptest.Gated(t, release) }

func declared(ch *chat.Chat, name string) bool {
	return slices.ContainsFunc(ch.Config().Tools, func(d llm.ToolDecl) bool { return d.Name == name })
}

// TestMCPToolsJoinAsServersConnect: in the background mode a server still
// starting is named as connecting and its tools are not declared; once it
// has connected, the change is signalled, nothing is pending and its tool
// is in the chat's tool list for the next request.
func TestMCPToolsJoinAsServersConnect(t *testing.T) {
	release := make(chan struct{})
	url := gatedMCP(t, release)
	m := mcp.Start(context.Background(), map[string]mcp.ServerConfig{"slow": {Transport: mcp.TransportHTTP, URL: url}}, mcp.Options{})
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Config{Mode: permission.ModeDefault, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	c := &Session{reg: tools.NewRegistry(), policy: policy, chat: chat.New(nil, chat.Config{}, nil), mcpm: m}
	c.closers = append(c.closers, func() { m.Close() })
	defer c.Close()
	c.connectMCPLater(&Config{}, io.Discard)
	names, changed := c.MCPConnecting()
	if !slices.Equal(names, []string{"slow"}) {
		t.Fatalf("connecting %v, want slow", names)
	}
	if declared(c.chat, "mcp__slow__lookup") {
		t.Fatal("a tool of a server not yet connected is declared")
	}
	close(release)
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no change signalled after the server connected")
	}
	if names, _ := c.MCPConnecting(); len(names) != 0 {
		t.Fatalf("still connecting: %v", names)
	}
	if !declared(c.chat, "mcp__slow__lookup") {
		t.Fatalf("the connected server's tool is not declared: %v", c.reg.Names())
	}
	if st := c.MCPServers(); len(st) != 1 || st[0].Status != "connected" || !strings.Contains(st[0].Name, "slow") {
		t.Fatalf("states %+v", st)
	}
}
