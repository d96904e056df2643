package core

import (
	"cmp"

	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/toolsearch"
)

// deferral says whether and how MCP tools are deferred behind
// tool_search.
type deferral struct {
	th     toolsearch.Threshold
	window int // the model's context window, in tokens
	// onLoad declares the tools tool_search loaded from the next request
	// on.
	onLoad func([]string)
}

// deferral is the session's: the settings' threshold, the model's window,
// and the chat's tool list redone when tools are loaded.
func (c *Session) deferral(cfg *Config) deferral {
	ts := cfg.Settings.Tools.ToolSearch
	return deferral{
		th:     toolsearch.Threshold{Enabled: ts.Enabled, Percent: ts.Threshold, MaxTools: ts.MaxTools},
		window: cmp.Or(cfg.ContextWindow, defaultContextWindow),
		onLoad: func([]string) {
			if c.chat != nil {
				c.chat.SetTools(c.reg.Decls())
			}
		},
	}
}

// register adds the MCP tools ts to reg: declared in full, or past the
// threshold deferred behind tool_search (when the policy offers it).
func (d deferral) register(reg *tools.Registry, ts []tools.Tool, offered func(string) bool) {
	if !offered(toolsearch.Name) || !toolsearch.ShouldDefer(ts, d.window, d.th) {
		for _, t := range ts {
			reg.Register(t)
		}
		return
	}
	for _, t := range ts {
		toolsearch.Defer(reg, t, d.onLoad)
	}
	// Registered again (in place) when more servers are added, so that
	// its description names them all.
	reg.Register(toolsearch.New(reg, d.onLoad))
}

// copyTools registers in dst the tools of src named, for a subagent:
// tools deferred in src are deferred in dst too, behind dst's own
// tool_search, whose loads onLoad declares.
func copyTools(dst, src *tools.Registry, names []string, onLoad func([]string)) {
	for _, n := range names {
		t, ok := src.Lookup(n)
		if !ok || n == toolsearch.Name {
			continue
		}
		if inner, ok := toolsearch.Deferred(t); ok {
			toolsearch.Defer(dst, inner, onLoad)
			continue
		}
		dst.Register(t)
	}
	if len(dst.Deferred()) > 0 {
		dst.Register(toolsearch.New(dst, onLoad))
	}
}
