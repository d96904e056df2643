package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/tools"
)

// Error types of the results MCP tools return.
const (
	// ErrorTypeTool: the tool ran and reported a failure (isError), or the
	// server refused the call with a protocol error.
	ErrorTypeTool = "MCP_TOOL_ERROR"
	// ErrorTypeServer: the server died or could not be reached.
	ErrorTypeServer = "MCP_SERVER_ERROR"
	// ErrorTypeTimeout: no answer within the server's call timeout.
	ErrorTypeTimeout = "MCP_TIMEOUT"
)

// Tool is one tool of an MCP server, as a ply tool.
type Tool struct {
	m        *Manager
	srv      *server
	remote   *sdk.Tool
	name     string
	desc     string
	schema   json.RawMessage
	readOnly bool
}

var (
	_ tools.Tool            = (*Tool)(nil)
	_ tools.ConcurrencySafe = (*Tool)(nil)
)

func newTool(m *Manager, s *server, t *sdk.Tool, name string) *Tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = fmt.Sprintf("Tool %q of the MCP server %q.", t.Name, s.cfg.Name)
	}
	return &Tool{
		m: m, srv: s, remote: t, name: name, desc: desc,
		schema:   objectSchema(t.InputSchema),
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
}

// Name is mcp__<server>__<tool>, see ToolName.
func (t *Tool) Name() string        { return t.name }
func (t *Tool) Description() string { return t.desc }

// Kind is KindRead when the server marks the tool read-only
// (annotations.readOnlyHint) and the user trusts the server; KindOther
// otherwise. The hint is the server's own claim, and a read-only kind
// runs unasked in default and plan mode: only the user's trust makes the
// claim count for approval.
func (t *Tool) Kind() tools.Kind {
	if t.readOnly && t.srv.cfg.Trust {
		return tools.KindRead
	}
	return tools.KindOther
}

// ConcurrencySafe implements tools.ConcurrencySafe: a tool the server
// marks read-only may run alongside other read-only calls, trusted or
// not. Running in parallel approves nothing: each call was approved
// before the batch starts.
func (t *Tool) ConcurrencySafe(json.RawMessage) bool { return t.readOnly }

func (t *Tool) Schema() json.RawMessage { return t.schema }

// Server is the configured name of the server the tool belongs to.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// ServerID is the server's name as it appears in tool names.
func (t *Tool) ServerID() string { return t.srv.cfg.ID }

// RemoteName is the tool's name on its server.
func (t *Tool) RemoteName() string { return t.remote.Name }

// Trusted reports whether the server is configured with "trust": true.
func (t *Tool) Trusted() bool { return t.srv.cfg.Trust }

// Annotations are the server's hints about the tool; may be nil.
func (t *Tool) Annotations() *sdk.ToolAnnotations { return t.remote.Annotations }

// objectSchema returns the input schema as JSON, made an object schema
// with properties, which every provider requires of function parameters.
func objectSchema(in any) json.RawMessage {
	m := map[string]any{}
	if in != nil {
		if b, err := json.Marshal(in); err == nil {
			var got map[string]any
			if json.Unmarshal(b, &got) == nil && got != nil {
				m = got
			}
		}
	}
	if m["type"] != "object" {
		m["type"] = "object"
	}
	if _, ok := m["properties"].(map[string]any); !ok {
		m["properties"] = map[string]any{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}

// Execute calls the tool. Cancelling ctx returns ctx's error at once; the
// server is told the call was cancelled. Every other outcome is a Result.
func (t *Tool) Execute(ctx context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	s := t.srv
	if err := s.deadError(); err != nil {
		return t.serverDown(err), nil
	}
	timeout := s.cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(t.m.ctx, cancel) // Close ends calls in flight
	defer stop()

	var arguments any = map[string]any{}
	if a := strings.TrimSpace(string(args)); a != "" && a != "null" {
		arguments = json.RawMessage(args)
	}
	res, err := s.session.CallTool(cctx, &sdk.CallToolParams{Name: t.remote.Name, Arguments: arguments})
	if err == nil {
		return convertResult(res), nil
	}
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, fmt.Errorf("calling %s: %w", t.name, ctx.Err())
	case t.m.ctx.Err() != nil:
		return tools.Errorf(ErrorTypeServer, "The MCP connections were closed while %q was running.", t.name), nil
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Errorf(ErrorTypeTimeout, "The MCP server %q did not answer the call to %q within %v; the call was cancelled.", s.cfg.Name, t.remote.Name, timeout), nil
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return tools.Errorf(ErrorTypeTool, "The MCP server %q refused the call to %q: %s", s.cfg.Name, t.remote.Name, rpcErr.Message), nil
	}
	// A transport failure: find out whether the server is gone.
	select {
	case <-s.dead:
		return t.serverDown(s.deadErr), nil
	case <-time.After(time.Second):
	}
	return tools.Errorf(ErrorTypeServer, "The call to %q on the MCP server %q failed: %v", t.remote.Name, s.cfg.Name, err), nil
}

// serverDown is the result of a call to a server that is gone.
func (t *Tool) serverDown(err error) tools.Result {
	if errors.Is(err, ErrClosed) {
		return tools.Errorf(ErrorTypeServer, "The MCP connections are closed; %q cannot be called.", t.name)
	}
	return tools.Errorf(ErrorTypeServer, "The MCP server %q is not running; its tools are unavailable for the rest of this session, do not call them again. Cause: %v", t.srv.cfg.Name, err)
}

// convertResult turns a tools/call result into a ply result: text and
// embedded text resources become the output, images become media, other
// binary content and resource links become a line each. Structured content
// is shown as JSON when there is no text.
func convertResult(res *sdk.CallToolResult) tools.Result {
	var r tools.Result
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *sdk.ImageContent:
			r.Media = append(r.Media, llm.Media{MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio content omitted: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource, &r))
			hasText = true
		case *sdk.ResourceLink:
			parts = append(parts, resourceLink(c))
		default:
			parts = append(parts, fmt.Sprintf("[unsupported content of type %T omitted]", c))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.MarshalIndent(res.StructuredContent, "", "  "); err == nil {
			parts = append([]string{string(b)}, parts...)
		}
	}
	r.Output = strings.Join(parts, "\n")
	if res.IsError {
		r.IsError = true
		r.ErrorType = ErrorTypeTool
		if strings.TrimSpace(r.Output) == "" {
			r.Output = "The MCP tool reported an error without a message."
		}
	}
	return r
}

func embedded(rc *sdk.ResourceContents, r *tools.Result) string {
	if rc == nil {
		return "[empty embedded resource]"
	}
	switch {
	case rc.Text != "":
		return rc.Text
	case len(rc.Blob) > 0 && strings.HasPrefix(rc.MIMEType, "image/"):
		r.Media = append(r.Media, llm.Media{MIMEType: rc.MIMEType, Data: rc.Blob})
		return fmt.Sprintf("[image resource %s]", rc.URI)
	case len(rc.Blob) > 0:
		return fmt.Sprintf("[binary resource %s omitted: %s, %d bytes]", rc.URI, orUnknown(rc.MIMEType), len(rc.Blob))
	}
	return fmt.Sprintf("[empty resource %s]", rc.URI)
}

func resourceLink(l *sdk.ResourceLink) string {
	var b strings.Builder
	b.WriteString("Resource link: " + l.URI)
	if l.Name != "" && l.Name != l.URI {
		b.WriteString(" (" + l.Name + ")")
	}
	if l.Description != "" {
		b.WriteString(" - " + firstLine(l.Description))
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
