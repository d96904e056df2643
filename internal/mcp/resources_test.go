package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addResourcesAndPrompts gives the test server two resources and a
// prompt with arguments.
func addResourcesAndPrompts(s *sdk.Server) {
	text := func(uri, body string) sdk.ResourceHandler {
		return func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: body}}}, nil
		}
	}
	s.AddResource(&sdk.Resource{URI: "docs://guide", Name: "guide", Description: "The style guide.", MIMEType: "text/markdown"}, text("docs://guide", "# Guide\nUse tabs."))
	s.AddResource(&sdk.Resource{URI: "docs://logo", Name: "logo", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "docs://logo", MIMEType: "image/png", Blob: pngData}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a file.", Arguments: []*sdk.PromptArgument{
		{Name: "file", Required: true}, {Name: "focus"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		a := req.Params.Arguments
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: fmt.Sprintf("Review %s, focusing on %s.", a["file"], a["focus"])}},
		}}, nil
	})
}

func TestResourceTools(t *testing.T) {
	m := Start(context.Background(), map[string]ServerConfig{
		"local": stdioServer(t, "local", "stdio"),
		"web":   httpServer(t, "web"),
	}, testOptions())
	t.Cleanup(func() { _ = m.Close() })
	ts := ResourceTools(context.Background(), m)
	if len(ts) != 2 || ts[0].Name() != ListResourcesName || ts[1].Name() != ReadResourceName {
		t.Fatalf("resource tools = %v", ts)
	}
	run := func(i int, args string) string {
		r, err := ts[i].Execute(context.Background(), json.RawMessage(args), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError {
			return "ERROR " + r.Output
		}
		return r.Output
	}
	out := run(0, `{}`)
	for _, want := range []string{"local", "web", "docs://guide", "The style guide.", "docs://logo"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if out := run(0, `{"server_name":"web"}`); strings.Contains(out, "local") {
		t.Errorf("list of one server names another:\n%s", out)
	}
	if out := run(1, `{"server_name":"local","uri":"docs://guide"}`); !strings.Contains(out, "Use tabs.") {
		t.Errorf("read = %q", out)
	}
	r, _ := ts[1].Execute(context.Background(), json.RawMessage(`{"server_name":"web","uri":"docs://logo"}`), nil)
	if len(r.Media) != 1 || r.Media[0].MIMEType != "image/png" {
		t.Errorf("image resource = %+v", r)
	}
	if out := run(1, `{"server_name":"nope","uri":"docs://guide"}`); !strings.HasPrefix(out, "ERROR") || !strings.Contains(out, "local") {
		t.Errorf("unknown server = %q", out)
	}
	if out := run(1, `{"server_name":"local","uri":"docs://missing"}`); !strings.HasPrefix(out, "ERROR") {
		t.Errorf("unknown resource = %q", out)
	}
}

func TestPrompts(t *testing.T) {
	m := Start(context.Background(), map[string]ServerConfig{"local": stdioServer(t, "local", "stdio")}, testOptions())
	t.Cleanup(func() { _ = m.Close() })
	ps := m.Prompts(context.Background())
	if len(ps) != 1 || ps[0].Command != "/mcp__local__review" || ps[0].Description != "Review a file." || len(ps[0].Args) != 2 || !ps[0].Args[0].Required {
		t.Fatalf("prompts = %+v", ps)
	}
	text, err := m.GetPrompt(context.Background(), "/mcp__local__review", `src/main.go "error handling"`)
	if err != nil || text != "Review src/main.go, focusing on error handling." {
		t.Errorf("get = %q, %v", text, err)
	}
	text, err = m.GetPrompt(context.Background(), "/mcp__local__review", `focus=naming file=a.go`)
	if err != nil || text != "Review a.go, focusing on naming." {
		t.Errorf("named arguments: %q, %v", text, err)
	}
	if _, err := m.GetPrompt(context.Background(), "/mcp__local__review", ""); err == nil || !strings.Contains(err.Error(), "file") {
		t.Errorf("missing required argument: %v", err)
	}
	if _, err := m.GetPrompt(context.Background(), "/mcp__local__nope", ""); err == nil {
		t.Error("unknown prompt: no error")
	}
}

func FuzzPromptArgs(f *testing.F) {
	for _, s := range []string{`a "b c" d`, `k=v x="y z"`, `"unterminated`, `=`, `a\ b`} {
		f.Add(s)
	}
	args := []PromptArg{{Name: "file", Required: true}, {Name: "focus"}}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := promptArgs(args, s)
		if err != nil {
			return
		}
		if got["file"] == "" {
			t.Fatalf("required argument empty for %q: %v", s, got)
		}
	})
}
