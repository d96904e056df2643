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

	"github.com/plyhq/ply/internal/tools"
)

// Names of the resource tools, as Qwen Code names its resource reader.
const (
	ListResourcesName = "list_mcp_resources"
	ReadResourceName  = "read_mcp_resource"
)

// ResourceTools waits as Tools does and returns list_mcp_resources and
// read_mcp_resource when a connected server offers resources; nil
// otherwise.
//
// Listing is KindRead: it sends resources/list, which carries nothing of
// the model's but the choice of server, and returns the catalogue the
// server publishes. Reading sends the model's URI to the server, which
// may do anything to answer it, so it is approved as a server's tools
// are: KindRead (unasked) only when the user trusts every server that
// offers resources, KindOther otherwise. Either may run in parallel.
func ResourceTools(ctx context.Context, m *Manager) []tools.Tool {
	servers := m.withResources(ctx)
	if len(servers) == 0 {
		return nil
	}
	trusted := true
	for _, name := range servers {
		trusted = trusted && m.servers[name].cfg.Trust
	}
	return []tools.Tool{&listResources{m}, &readResource{m: m, trusted: trusted}}
}

// withResources returns the names of the connected servers that offer
// resources, in name order.
func (m *Manager) withResources(ctx context.Context) []string {
	var out []string
	for _, name := range m.names {
		s := m.servers[name]
		if s.wait(ctx) != nil || s.err != nil || s.deadError() != nil {
			continue
		}
		if ir := s.session.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources != nil {
			out = append(out, name)
		}
	}
	return out
}

// connected returns the connected server named name (its configured name or
// its id), or an error for the model listing those there are.
func (m *Manager) connected(ctx context.Context, name string) (*server, error) {
	for _, n := range m.names {
		s := m.servers[n]
		if n != name && s.cfg.ID != name {
			continue
		}
		if err := s.wait(ctx); err != nil {
			return nil, err
		}
		if s.err != nil {
			return nil, fmt.Errorf("the MCP server %q is not available: %w", n, s.err)
		}
		if err := s.deadError(); err != nil {
			return nil, fmt.Errorf("the MCP server %q is not running: %w", n, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("no MCP server named %q; the servers are: %s", name, strings.Join(m.names, ", "))
}

type listResources struct{ m *Manager }

func (*listResources) Name() string     { return ListResourcesName }
func (*listResources) Kind() tools.Kind { return tools.KindRead }
func (*listResources) Description() string {
	return "Lists the resources (documents, data) that the connected MCP servers offer, with their URIs. Read one with " + ReadResourceName + "."
}
func (*listResources) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server_name":{"type":"string","description":"Only this server's resources; all servers' when omitted."}},"additionalProperties":false}`)
}

func (t *listResources) Execute(ctx context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct {
		Server string `json:"server_name"`
	}
	_ = json.Unmarshal(args, &p)
	names := t.m.withResources(ctx)
	if p.Server != "" {
		s, err := t.m.connected(ctx, p.Server)
		if err != nil {
			return tools.Errorf(ErrorTypeServer, "%v", err), nil
		}
		names = []string{s.cfg.Name}
	}
	var b strings.Builder
	for _, name := range names {
		s := t.m.servers[name]
		fmt.Fprintf(&b, "%s:\n", name)
		n := 0
		for r, err := range s.session.Resources(ctx, nil) {
			if err != nil {
				fmt.Fprintf(&b, "  (listing failed: %v)\n", err)
				break
			}
			n++
			fmt.Fprintf(&b, "  %s", r.URI)
			if r.Name != "" && r.Name != r.URI {
				fmt.Fprintf(&b, " (%s)", r.Name)
			}
			if r.MIMEType != "" {
				fmt.Fprintf(&b, " [%s]", r.MIMEType)
			}
			if d := firstLine(r.Description); d != "" {
				fmt.Fprintf(&b, " - %s", d)
			}
			b.WriteString("\n")
		}
		if n == 0 {
			b.WriteString("  (no resources)\n")
		}
	}
	if b.Len() == 0 {
		return tools.Result{Output: "No connected MCP server offers resources."}, nil
	}
	return tools.Result{Output: strings.TrimRight(b.String(), "\n")}, nil
}

type readResource struct {
	m *Manager
	// trusted: the user trusts every server that offers resources.
	trusted bool
}

func (*readResource) Name() string { return ReadResourceName }

func (t *readResource) Kind() tools.Kind {
	if t.trusted {
		return tools.KindRead
	}
	return tools.KindOther
}

// ConcurrencySafe implements tools.ConcurrencySafe: reading changes
// nothing here, whoever approved it.
func (*readResource) ConcurrencySafe(json.RawMessage) bool { return true }
func (*readResource) Description() string {
	return "Reads a resource of a connected MCP server by server_name and URI (as " + ListResourcesName + " lists them)."
}
func (*readResource) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"server_name":{"type":"string","minLength":1,"description":"The configured MCP server name."},` +
		`"uri":{"type":"string","minLength":1,"description":"The exact resource URI to read from that server."}},` +
		`"required":["server_name","uri"],"additionalProperties":false}`)
}

func (t *readResource) Execute(ctx context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct {
		Server string `json:"server_name"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(args, &p); err != nil || p.Server == "" || p.URI == "" {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s needs server_name and uri.", ReadResourceName), nil
	}
	s, err := t.m.connected(ctx, p.Server)
	if err != nil {
		return tools.Errorf(ErrorTypeServer, "%v", err), nil
	}
	cctx, cancel := context.WithTimeout(ctx, cmpTimeout(s.cfg.Timeout))
	defer cancel()
	res, err := s.session.ReadResource(cctx, &sdk.ReadResourceParams{URI: p.URI})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return tools.Errorf(ErrorTypeTool, "The MCP server %q could not read %s: %s", s.cfg.Name, p.URI, rpcErr.Message), nil
		}
		return tools.Errorf(ErrorTypeServer, "Reading %s from the MCP server %q failed: %v", p.URI, s.cfg.Name, err), nil
	}
	var r tools.Result
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, embedded(c, &r))
	}
	r.Output = strings.Join(parts, "\n")
	if len(res.Contents) == 0 {
		r.Output = fmt.Sprintf("The resource %s is empty.", p.URI)
	}
	r.Display = fmt.Sprintf("read %s from %s", p.URI, s.cfg.Name)
	return r, nil
}

// cmpTimeout is a server's call timeout, or the default.
func cmpTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultCallTimeout
	}
	return d
}
