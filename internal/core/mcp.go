package core

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/tools"
)

// MCPServer is an MCP server's state at start: "connected" or "failed".
type MCPServer struct {
	Name, Status string
}

// trustedServers returns allow rules for the servers marked trust: their
// tools run without asking, as in the peers' configuration files.
func trustedServers(servers map[string]mcp.ServerConfig) []string {
	var rules []string
	for _, s := range servers {
		if s.Trust && !s.Disabled {
			rules = append(rules, "mcp__"+s.ID)
		}
	}
	return rules
}

// startMCP starts the configured servers in the background; addMCPTools
// later waits for them. Between the two, the rest of start-up runs.
func startMCP(ctx context.Context, cfg *Config, log *slog.Logger) *mcp.Manager {
	if len(cfg.MCP) == 0 {
		return nil
	}
	return mcp.Start(ctx, cfg.MCP, mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: cfg.Version, Env: cfg.ChildEnv, OAuthDir: OAuthDir(cfg.Home)})
}

// addMCPTools registers the tools of the servers that started, unless the
// policy does not offer them, and reports each server that failed once,
// on notices. It returns the servers' states for the init message.
// Past the threshold d holds, they are deferred behind tool_search.
func addMCPTools(ctx context.Context, m *mcp.Manager, reg *tools.Registry, offered func(string) bool, notices io.Writer, d deferral) []MCPServer {
	if m == nil {
		return nil
	}
	ts, fails := m.Tools(ctx)
	var states []MCPServer
	connected := map[string]bool{}
	var keep []tools.Tool
	for _, t := range ts {
		if mt, ok := t.(*mcp.Tool); ok {
			connected[mt.Server()] = true
		}
		if offered(t.Name()) {
			keep = append(keep, t)
		}
	}
	d.register(reg, keep, offered)
	for _, t := range mcp.ResourceTools(ctx, m) {
		if offered(t.Name()) {
			reg.Register(t)
		}
	}
	for name := range connected {
		states = append(states, MCPServer{Name: name, Status: "connected"})
	}
	for _, f := range fails {
		fmt.Fprintf(notices, "ply: warning: MCP server %q is not available, continuing without it: %v\n", f.Server, oneLine(f.Err))
		states = append(states, MCPServer{Name: f.Server, Status: "failed"})
	}
	return states
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// AddMCPServers starts the MCP servers an SDK named in its initialize
// request and offers their tools from the next request on. The SDK's
// caller chose them, as a user chooses those of --mcp-config.
// Embedded servers (in the SDK's process) are reached through send.
func (c *Session) AddMCPServers(ctx context.Context, raw map[string]json.RawMessage, embedded []string, send func(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error), log *slog.Logger, notices io.Writer) ([]MCPServer, []string, error) {
	cfg := c.cfg
	servers, err := mcp.ParseServers(raw)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range embedded {
		servers[name] = mcp.EmbeddedServer(name, func(ctx context.Context, msg json.RawMessage) (json.RawMessage, error) {
			return send(ctx, name, msg)
		})
	}
	// Trust in these servers is the SDK caller's, as in --mcp-config.
	if err := c.policy.Grant("the SDK's mcpServers", trustedServers(servers)); err != nil {
		return nil, nil, fmt.Errorf("trusting the SDK's MCP servers: %w", err)
	}
	m := mcp.Start(ctx, servers, mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: cfg.Version, Env: cfg.ChildEnv, OAuthDir: OAuthDir(cfg.Home)})
	c.closers = append(c.closers, func() {
		if err := m.Close(); err != nil {
			log.Warn("closing MCP servers", "err", err)
		}
	})
	states := addMCPTools(ctx, m, c.reg, c.policy.Offered, notices, c.deferral(cfg))
	c.chat.SetTools(c.reg.Decls())
	return states, c.reg.Names(), nil
}

// OAuthDir is where MCP OAuth tokens are kept; "" (no OAuth) without a
// home.
func OAuthDir(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, "mcp-oauth")
}
