// Package mcptest serves MCP servers on loopback for tests of the code
// that connects to them. It is imported by tests only.
package mcptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Gated serves, over streamable HTTP, an MCP server with one tool,
// "lookup", that answers nothing until release is closed: a server slow
// to start, without a timer. It returns the server's URL; the server and
// its sessions end with the test.
func Gated(t testing.TB, release <-chan struct{}) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "lookup", Description: "Looks a key up.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "found"}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		// A client killed without ending its session leaves it open.
		for ss := range srv.Sessions() {
			ss.Close()
		}
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}
