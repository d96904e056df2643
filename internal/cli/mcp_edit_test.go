package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// `ply mcp add` writes the user's settings, `ply mcp list` then connects
// to the server, and a session calls its tool.
func TestMCPAddListCall(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home, dir := t.TempDir(), t.TempDir()
	r := runPlyHome(t, dir, home, nil, "mcp", "add", "-e", mcpServerEnv+"=1", "kb", "--", exe, "-test.run=none")
	if r.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `Added stdio MCP server "kb"`) || !strings.Contains(r.stdout, filepath.Join(home, "settings.json")) {
		t.Errorf("mcp add said %q", r.stdout)
	}
	var file struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(home, "settings.json"))
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("settings: %v\n%s", err, b)
	}
	kb := file.MCPServers["kb"]
	if kb.Command != exe || len(kb.Args) != 1 || kb.Args[0] != "-test.run=none" || kb.Env[mcpServerEnv] != "1" {
		t.Errorf("saved entry = %+v", kb)
	}

	r = runPlyHome(t, dir, home, nil, "mcp", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "kb (stdio") || !strings.Contains(r.stdout, "connected, 3 tools") {
		t.Fatalf("mcp list: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "mcp__kb__lookup", `{"key":"colour"}`)},
		fp.Turn{fp.When("value of colour"), fp.Text("done")},
	)
	r = runPlyHome(t, dir, home, srv, "-y", "-p", "look up colour")
	if r.code != 0 || !strings.Contains(r.stdout, "done") {
		t.Fatalf("session: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	r = runPlyHome(t, dir, home, nil, "mcp", "remove", "kb")
	if r.code != 0 || !strings.Contains(r.stdout, `Removed MCP server "kb"`) {
		t.Fatalf("mcp remove: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runPlyHome(t, dir, home, nil, "mcp", "list")
	if !strings.Contains(r.stdout, "No MCP servers configured") {
		t.Errorf("after remove, list = %q", r.stdout)
	}
	r = runPlyHome(t, dir, home, nil, "mcp", "remove", "kb")
	if r.code != 42 || !strings.Contains(r.stderr, "kb") {
		t.Errorf("removing it again: exit %d, %q", r.code, r.stderr)
	}
}

// An HTTP server added with a header gets that header on every request.
func TestMCPAddHTTP(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "ping", Description: "Answers pong.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
		})
	var mu sync.Mutex
	var tokens []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokens = append(tokens, r.Header.Get("X-Token"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()

	home, dir := t.TempDir(), t.TempDir()
	r := runPlyHome(t, dir, home, nil, "mcp", "add", "--transport", "http", "-H", "X-Token: abc", "web", hs.URL)
	if r.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s", r.code, r.stderr)
	}
	r = runPlyHome(t, dir, home, nil, "mcp", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "web (http: "+hs.URL) || !strings.Contains(r.stdout, "mcp__web__ping - Answers pong.") {
		t.Fatalf("mcp list: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "mcp__web__ping", `{}`)},
		fp.Turn{fp.When("pong"), fp.Text("got pong")},
	)
	r = runPlyHome(t, dir, home, srv, "-y", "-p", "ping")
	if r.code != 0 || !strings.Contains(r.stdout, "got pong") {
		t.Fatalf("session: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokens) == 0 {
		t.Fatal("the server got no request")
	}
	for _, tok := range tokens {
		if tok != "abc" {
			t.Fatalf("a request came without the header: %q", tokens)
		}
	}
}

func TestMCPAddScopesAndErrors(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	r := runPlyHome(t, dir, home, nil, "mcp", "add", "--scope", "project", "--transport", "sse", "old", "https://example.test/sse")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".ply", "settings.json"))
	if err != nil || !strings.Contains(string(b), `"type":"sse"`) || !strings.Contains(string(b), "https://example.test/sse") {
		t.Errorf("project settings: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(home, "settings.json")); err == nil {
		t.Error("a project-scoped add wrote the user's settings")
	}
	r = runPlyHome(t, dir, home, nil, "mcp", "remove", "--scope", "project", "old")
	if r.code != 0 {
		t.Errorf("remove from project: exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"add"},
		{"add", "x"},
		{"add", "--transport", "carrier-pigeon", "x", "http://h"},
		{"add", "--scope", "galaxy", "x", "--", "cmd"},
		{"add", "-e", "NOEQUALS", "x", "--", "cmd"},
		{"add", "-H", "no colon", "--transport", "http", "x", "http://h"},
		{"add", "--transport", "http", "x", "not-a-url"},
		{"remove"},
	} {
		r := runPlyHome(t, dir, home, nil, append([]string{"mcp"}, args...)...)
		if r.code != 42 || r.stderr == "" {
			t.Errorf("ply mcp %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "settings.json")); err == nil {
		t.Error("a refused add wrote the settings")
	}
}

// The model lists and reads a server's resources.
func TestMCPResourcesInASession(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "list_mcp_resources", `{}`)},
		fp.Turn{fp.When("kb://readme"), fp.ToolCall("c2", "read_mcp_resource", `{"server_name":"kb","uri":"kb://readme"}`)},
		fp.Turn{fp.When("colours and shapes"), fp.Text("read it")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-p", "what is in the kb", "--mcp-config", mcpFlag(t))
	if r.code != 0 || !strings.Contains(r.stdout, "read it") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestMCPLoginErrors(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	if r := runPlyHome(t, dir, home, nil, "mcp", "add", "local", "--", "some-server"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"login"}, "usage: ply mcp login [--device] NAME"},
		{[]string{"login", "nope"}, `no MCP server named "nope"`},
		{[]string{"login", "local"}, "not an HTTP server"},
		{[]string{"logout", "local"}, "not an HTTP server"},
	} {
		r := runPlyHome(t, dir, home, nil, append([]string{"mcp"}, c.args...)...)
		if r.code != 42 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("ply mcp %v: exit %d, %q", c.args, r.code, r.stderr)
		}
	}
}
