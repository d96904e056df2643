package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
)

// mcpPromptTimeout bounds rendering one prompt on its server;
// mcpListTimeout listing them.
const (
	mcpPromptTimeout = time.Minute
	mcpListTimeout   = 5 * time.Second
)

// mcpPromptsList lists the servers' prompts, for /mcp (cmd_info.go); nil
// when the session has no MCP prompts to offer.
func (m *model) mcpPromptsList() tea.Cmd {
	s, ok := probe[MCPPrompter](m)
	if !ok {
		return nil
	}
	// Listing asks every server: off the UI goroutine, waiting a while
	// for those still starting.
	base := m.base
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, mcpListTimeout)
		defer cancel()
		ps := s.MCPPrompts(ctx)
		return funcMsg(func(m *model) tea.Cmd { return m.showMCPPrompts(ps) })
	}
}

func (m *model) showMCPPrompts(ps []MCPPrompt) tea.Cmd {
	if len(ps) == 0 {
		return m.commit(m.st.dim.Render("No MCP server offers prompts."))
	}
	var b strings.Builder
	b.WriteString("MCP prompts:")
	for _, p := range ps {
		line := p.Command
		for _, a := range p.Args {
			line += " <" + a + ">"
		}
		if p.Description != "" {
			line += " - " + p.Description
		}
		b.WriteString("\n  " + sanitize(line))
	}
	return m.commit(b.String())
}

// mcpPromptCommand is the command of an MCP prompt, or nil when name is
// not one.
func (m *model) mcpPromptCommand(name string) *slashCommand {
	if _, ok := probe[MCPPrompter](m); !ok || !strings.HasPrefix(name, "/mcp__") {
		return nil
	}
	return &slashCommand{name: name, idle: true, run: func(m *model, arg string) tea.Cmd { return m.runMCPPrompt(name, arg) }}
}

// runMCPPrompt renders the prompt on its server, off the UI goroutine,
// then sends it as the user's prompt; the command line is what is shown.
func (m *model) runMCPPrompt(name, arg string) tea.Cmd {
	s, _ := probe[MCPPrompter](m)
	base := m.base
	line := strings.TrimSpace(name + " " + arg)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, mcpPromptTimeout)
		defer cancel()
		text, err := s.GetMCPPrompt(ctx, name, arg)
		return funcMsg(func(m *model) tea.Cmd {
			if err != nil {
				return m.commit(m.st.err.Render(sanitize(fmt.Sprintf("%s: %v", name, err))))
			}
			if m.busy || m.compacting {
				return m.notIdle(name)
			}
			m.stats.prompts++
			return tea.Batch(m.commit(m.renderUser(line)), m.start([]llm.Part{{Text: text}}, client.UserQuery))
		})
	}
}
