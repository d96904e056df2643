package core

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/tools"
)

// mcpLater connects the MCP servers behind a usable session (the
// interactive UI): New does not wait for them; each server's tools join
// the registry and the chat's tool list as soon as it has connected, so
// the next request offers them.
type mcpLater struct {
	mu      sync.Mutex
	states  []MCPServer
	pending []string
	added   map[string]bool // tool names registered
	failed  map[string]bool // servers reported failed
	// changed is closed, and replaced, at every change of pending.
	changed chan struct{}
	closed  bool
}

// connectMCPLater starts adopting the servers' tools as they connect.
// Called once the chat exists, at the end of New.
func (c *Session) connectMCPLater(cfg *Config, notices io.Writer) {
	m := c.mcpm
	if m == nil {
		return
	}
	bg := &mcpLater{pending: m.Names(), added: map[string]bool{}, failed: map[string]bool{}, changed: make(chan struct{})}
	c.mcpBG = bg
	d := c.deferral(cfg)
	c.closers = append(c.closers, func() {
		bg.mu.Lock()
		bg.closed = true
		bg.mu.Unlock()
	})
	for _, name := range m.Names() {
		go func() {
			<-m.Started(name) // closed on connect, failure, or Close
			c.adoptMCP(m, bg, d, notices)
		}()
	}
}

// adoptMCP registers the tools of the servers that have connected and
// not yet been adopted, reports those that failed, and declares the tools
// to the chat from its next request on.
func (c *Session) adoptMCP(m *mcp.Manager, bg *mcpLater, d deferral, notices io.Writer) {
	bg.mu.Lock()
	defer bg.mu.Unlock()
	if bg.closed {
		return
	}
	ts, fails, pending := m.ReadyTools()
	offered := c.policy.Offered
	var keep []tools.Tool
	var states []MCPServer
	connected := map[string]bool{}
	for _, t := range ts {
		if mt, ok := t.(*mcp.Tool); ok && !connected[mt.Server()] {
			connected[mt.Server()] = true
			states = append(states, MCPServer{Name: mt.Server(), Status: "connected"})
		}
		if !bg.added[t.Name()] && offered(t.Name()) {
			bg.added[t.Name()] = true
			keep = append(keep, t)
		}
	}
	if len(keep) > 0 {
		d.register(c.reg, keep, offered)
	}
	for _, f := range fails {
		states = append(states, MCPServer{Name: f.Server, Status: "failed"})
		if !bg.failed[f.Server] {
			bg.failed[f.Server] = true
			fmt.Fprintf(notices, "ply: warning: MCP server %q is not available, continuing without it: %v\n", f.Server, oneLine(f.Err))
		}
	}
	if len(pending) == 0 {
		for _, t := range mcp.ResourceTools(context.Background(), m) {
			if offered(t.Name()) && !bg.added[t.Name()] {
				bg.added[t.Name()] = true
				c.reg.Register(t)
			}
		}
	}
	bg.states = states
	c.chat.SetTools(c.reg.Decls())
	if !slices.Equal(pending, bg.pending) {
		bg.pending = pending
		close(bg.changed)
		bg.changed = make(chan struct{})
	}
}

// MCPConnecting names the MCP servers still connecting, and returns a
// channel closed when that changes.
func (c *Session) MCPConnecting() ([]string, <-chan struct{}) {
	bg := c.mcpBG
	if bg == nil {
		return nil, nil
	}
	bg.mu.Lock()
	defer bg.mu.Unlock()
	return slices.Clone(bg.pending), bg.changed
}

// mcpStates are the servers' states: those New waited for, or those
// connected in the background so far.
func (c *Session) mcpStates() []MCPServer {
	if bg := c.mcpBG; bg != nil {
		bg.mu.Lock()
		defer bg.mu.Unlock()
		return slices.Clone(bg.states)
	}
	return c.mcp
}
