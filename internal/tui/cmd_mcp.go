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

// MCPPrompt is an MCP server's prompt, a slash command: /mcp__server__name.
type MCPPrompt struct {
	Command     string
	Description string
	// Args names its arguments, in order.
	Args []string
}

// mcpPromptTimeout bounds rendering one prompt on its server.
const mcpPromptTimeout = time.Minute

// mcpPromptsList lists the servers' prompts, for /mcp (cmd_info.go); nil
// when the session has no MCP prompts to offer.
func (m *model) mcpPromptsList() tea.Cmd {
	if m.cfg.MCPPrompts == nil {
		return nil
	}
	// Listing asks every server: off the UI goroutine.
	list := m.cfg.MCPPrompts
	return func() tea.Msg {
		ps := list()
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
	if !strings.HasPrefix(name, "/mcp__") || m.cfg.GetMCPPrompt == nil {
		return nil
	}
	return &slashCommand{name: name, idle: true, run: func(m *model, arg string) tea.Cmd { return m.runMCPPrompt(name, arg) }}
}

// runMCPPrompt renders the prompt on its server, off the UI goroutine,
// then sends it as the user's prompt; the command line is what is shown.
func (m *model) runMCPPrompt(name, arg string) tea.Cmd {
	get, base := m.cfg.GetMCPPrompt, m.base
	line := strings.TrimSpace(name + " " + arg)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, mcpPromptTimeout)
		defer cancel()
		text, err := get(ctx, name, arg)
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
