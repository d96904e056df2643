package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The test binary is also the stdio test server: with PLY_MCP_TEST_SERVER
// set it serves instead of testing.
//
//	stdio  the test server on stdin/stdout
//	exit   writes to stderr and exits with status 3 at once
//	hang   reads stdin and never answers
//
// PLY_MCP_TEST_DELAY (a duration) makes it sleep before serving.
const serverEnv = "PLY_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" {
		os.Exit(runTestServer(mode))
	}
	goleak.VerifyTestMain(m)
}

func runTestServer(mode string) int {
	if f := os.Getenv("PLY_MCP_TEST_ENVFILE"); f != "" {
		// The environment the server was given, for the tests of what it
		// may see.
		if err := os.WriteFile(f, []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "envfile:", err)
			return 1
		}
	}
	if d, err := time.ParseDuration(os.Getenv("PLY_MCP_TEST_DELAY")); err == nil {
		time.Sleep(d)
	}
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: cannot open the database")
		return 3
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	}
	fmt.Fprintln(os.Stderr, "test server ready")
	if err := newTestServer(true).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// pngData is a 1×1 PNG.
var pngData, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func newTestServer(stdio bool) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "ply-test", Version: "1"}, nil)
	obj := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":` + props + `}`)
	}
	s.AddTool(&sdk.Tool{
		Name: "echo", Description: "Echo the text back.\nSecond line.",
		InputSchema: obj(`{"text":{"type":"string"}}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var a struct{ Text string }
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		return textResult("echo: " + a.Text), nil
	})
	s.AddTool(&sdk.Tool{Name: "image", Description: "A tiny image.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: pngData}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r := textResult("the disk is full")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Sleeps.", InputSchema: obj(`{"ms":{"type":"number"}}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ MS int }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
				return textResult("slept"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	s.AddTool(&sdk.Tool{Name: "structured", Description: "", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{StructuredContent: map[string]any{"count": 3}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "mixed", Description: "Every kind of content.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "first"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "resource text"}},
				&sdk.ResourceLink{URI: "file:///b.txt", Name: "b.txt"},
				&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
			}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "dotted.name", Description: "A name with a dot.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}}, nil
		})
	addResourcesAndPrompts(s)
	if stdio {
		s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits the server.", InputSchema: obj(`{}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "panic: crash requested")
				os.Exit(2)
				return nil, nil
			})
	}
	return s
}

// stdioServer is the config of the test binary serving in mode.
func stdioServer(t testing.TB, name, mode string, extraEnv ...string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The race runtime sleeps a second at exit; the server must not.
	env := map[string]string{serverEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		env[extraEnv[i]] = extraEnv[i+1]
	}
	return ServerConfig{Name: name, ID: sanitize(name), Transport: TransportStdio, Command: exe, Env: env}
}

// httpServer serves the test server over streamable HTTP on loopback.
func httpServer(t testing.TB, name string) ServerConfig {
	t.Helper()
	srv := newTestServer(false)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ServerConfig{Name: name, ID: sanitize(name), Transport: TransportHTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer secret"}}
}

func testOptions() Options {
	return Options{ConnectTimeout: 20 * time.Second, CloseGrace: 500 * time.Millisecond}
}
