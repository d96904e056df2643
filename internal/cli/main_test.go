package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/sandbox"
)

// mcpServerEnv makes the test binary an MCP server on stdin/stdout, for
// the sessions that use one.
const mcpServerEnv = "PLY_CLI_TEST_MCP_SERVER"

// mcpHinted, as mcpServerEnv's value, marks the server's lookup tool
// read-only.
const mcpHinted = "hinted"

// runPlyEnv makes the test binary run ply with its arguments, for tests
// that need a second ply process.
const runPlyEnv = "PLY_CLI_TEST_RUN_PLY"

// runPlyMainEnv is runPlyEnv with the signal handling of ply's main.
const runPlyMainEnv = "PLY_CLI_TEST_RUN_PLY_MAIN"

// Every in-process run must leave no goroutine behind: streams, tools and
// background shell jobs all end with the run.
func TestMain(m *testing.M) {
	// Confined shell commands start this binary as the sandbox helper.
	sandbox.MaybeRunHelper()
	if a := os.Getenv(playPlyEnv); a != "" {
		os.Exit(playPly(a))
	}
	if os.Getenv(mcpServerEnv) != "" {
		os.Exit(serveTestMCP())
	}
	if p := os.Getenv(mcpWideEnv); p != "" {
		os.Exit(serveWideMCP(p))
	}
	if os.Getenv(runPlyMainEnv) != "" {
		ctx, _ := SignalContext(context.Background())
		os.Exit(Main(ctx, os.Args[1:], IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
	}
	if os.Getenv(runPlyEnv) != "" {
		os.Exit(Main(context.Background(), os.Args[1:], IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
	}
	goleak.VerifyTestMain(m,
		// The shared HTTP transport keeps idle keep-alive connections to
		// the fake servers; they are the transport's, not a run's.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

// serveTestMCP serves "lookup" (answers), "broken" (an error result) and
// "crash" (the server exits mid-call). With mcpServerEnv set to
// mcpHinted, the server claims that lookup only reads (readOnlyHint).
func serveTestMCP() int {
	s := sdk.NewServer(&sdk.Implementation{Name: "cli-test", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`)
	var hint *sdk.ToolAnnotations
	if os.Getenv(mcpServerEnv) == mcpHinted {
		hint = &sdk.ToolAnnotations{ReadOnlyHint: true}
	}
	s.AddTool(&sdk.Tool{Name: "lookup", Description: "Look a key up.", InputSchema: schema, Annotations: hint},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ Key string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "value of " + a.Key}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "broken", Description: "Fails.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "backend unavailable"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "fatal: crash requested")
			os.Exit(2)
			return nil, nil
		})
	s.AddResource(&sdk.Resource{URI: "kb://readme", Name: "readme", Description: "What the knowledge base holds."},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "kb://readme", Text: "colours and shapes"}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "explain", Description: "Explain a key.", Arguments: []*sdk.PromptArgument{{Name: "key", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Explain the key " + req.Params.Arguments["key"] + " in one line."}}}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}
