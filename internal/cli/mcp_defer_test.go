package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// mcpWideEnv makes the test binary an MCP server of wideTools tools, named
// after the variable's value.
const mcpWideEnv = "PLY_CLI_TEST_MCP_WIDE"

const wideTools = 20

// serveWideMCP serves tools shaped like those of real servers: a
// paragraph of description and a few documented parameters each.
func serveWideMCP(prefix string) int {
	s := sdk.NewServer(&sdk.Implementation{Name: prefix, Version: "1"}, nil)
	for i := range wideTools {
		name := fmt.Sprintf("%s_action_%02d", prefix, i)
		schema := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"resource_id":{"type":"string","description":"The identifier of the %s resource to act on, as returned by the list call."},`+
			`"options":{"type":"object","description":"Optional settings for the action.","properties":{"dry_run":{"type":"boolean","description":"Report what would change without changing it."},"limit":{"type":"integer","description":"At most this many items."}}},`+
			`"note":{"type":"string","description":"A free-text note recorded with the action."}},"required":["resource_id"]}`, prefix))
		desc := fmt.Sprintf("Performs action %d on a %s resource. Use it when the user asks to change, inspect or report on %s resources; "+
			"it returns the resource's new state as JSON, or an error naming the field at fault.", i, prefix, prefix)
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: schema},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "did " + name + " " + string(req.Params.Arguments)}}}, nil
			})
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// wideConfig is --mcp-config for three servers of twenty tools each.
func wideConfig(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{}
	for _, name := range []string{"tickets", "billing", "deploys"} {
		servers[name] = map[string]any{"command": exe, "env": map[string]string{mcpWideEnv: name}, "trust": true}
	}
	return mustJSON(map[string]any{"mcpServers": servers})
}

func toolNames(req fp.Request) []string {
	var out []string
	ts, _ := req.Body["tools"].([]any)
	for _, t := range ts {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		out = append(out, fn["name"].(string))
	}
	return out
}

// firstRequestBytes runs one prompt against the three servers with the
// given user settings and returns the size of the first request's body.
func firstRequestBytes(t *testing.T, settingsJSON string, mcpConfig string) int {
	t.Helper()
	home := t.TempDir()
	if settingsJSON != "" {
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	args := []string{"-p", "hello"}
	if mcpConfig != "" {
		args = append(args, "--mcp-config", mcpConfig)
	}
	r := runPlyHome(t, t.TempDir(), home, srv, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	return len(srv.Requests()[0].Raw)
}

// TestDeferredToolsRequestSize measures the first request with sixty MCP
// tools declared in full and deferred behind tool_search (go test -v
// prints the sizes).
func TestDeferredToolsRequestSize(t *testing.T) {
	none := firstRequestBytes(t, "", "")
	full := firstRequestBytes(t, `{"tools": {"toolSearch": {"enabled": false}}}`, wideConfig(t))
	deferred := firstRequestBytes(t, "", wideConfig(t))
	t.Logf("first request with 3 MCP servers x %d tools: %d bytes in full, %d bytes deferred (%.0f%% smaller); %d bytes without MCP servers",
		wideTools, full, deferred, 100*float64(full-deferred)/float64(full), none)
	if deferred*2 > full {
		t.Errorf("deferring saved too little: %d -> %d bytes", full, deferred)
	}
}

func TestDeferredToolsSession(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "tool_search", `{"query":"select:mcp__billing__billing_action_07"}`)},
		fp.Turn{fp.When("now in your tool list"), fp.ToolCall("c2", "mcp__billing__billing_action_07", `{"resource_id":"inv-1"}`)},
		fp.Turn{fp.When("did billing_action_07"), fp.ToolCall("c3", "mcp__deploys__deploys_action_01", `{"resource_id":"d-1"}`)},
		fp.Turn{fp.When("Call it again"), fp.ToolCall("c4", "mcp__deploys__deploys_action_01", `{"resource_id":"d-1"}`)},
		fp.Turn{fp.When("did deploys_action_01"), fp.ToolCall("c5", "tool_search", `{"query":"tickets 03"}`)},
		fp.Turn{fp.Text("all done")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-p", "work", "-o", "stream-json", "--mcp-config", wideConfig(t))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := toolNames(reqs[0])
	if !slices.Contains(first, "tool_search") || slices.ContainsFunc(first, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Fatalf("first request declares %v", first)
	}
	if !strings.Contains(string(reqs[0].Raw), "mcp__tickets__tickets_action_19") {
		t.Error("the deferred tools are not named in the first request")
	}
	prev := first
	for i, req := range reqs[1:] {
		got := toolNames(req)
		if len(got) < len(prev) || !slices.Equal(got[:len(prev)], prev) {
			t.Fatalf("request %d's tools do not extend the previous ones:\n%v\n%v", i+1, prev, got)
		}
		prev = got
	}
	if got := toolNames(reqs[1]); got[len(got)-1] != "mcp__billing__billing_action_07" {
		t.Errorf("after select, the last tool is %s", got[len(got)-1])
	}
	if !slices.Contains(toolNames(reqs[3]), "mcp__deploys__deploys_action_01") {
		t.Error("a call to an unloaded tool did not load it")
	}
	if !strings.Contains(string(reqs[3].Raw), "TOOL_NOT_LOADED") && !strings.Contains(string(reqs[3].Raw), "tool_search to find") {
		t.Error("the unloaded call's error does not say to search first")
	}
	if strings.Contains(string(reqs[3].Raw), "did deploys_action_01") {
		t.Error("the unloaded tool ran")
	}
	if !slices.Contains(toolNames(reqs[5]), "mcp__tickets__tickets_action_03") {
		t.Errorf("keyword search did not load the best match: %v", toolNames(reqs[5]))
	}
}
