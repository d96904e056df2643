package cli

import (
	"context"
	"time"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/tui"
)

// addSkills gives the interactive UI /skills and /name.
func addSkills(t *tui.Config, c *core.Session) {
	t.Skills = func() []tui.SkillInfo {
		var out []tui.SkillInfo
		for _, s := range c.Skills().Skills() {
			out = append(out, tui.SkillInfo{Name: s.Name, Description: s.Description, Path: s.Path, Source: s.Source})
		}
		return out
	}
	t.InvokeSkill = c.Skills().Invoke
}

// addMCPPrompts offers the servers' prompts as slash commands.
func addMCPPrompts(t *tui.Config, c *core.Session) {
	m := c.MCPManager()
	if m == nil {
		return
	}
	t.MCPPrompts = func() []tui.MCPPrompt {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var out []tui.MCPPrompt
		for _, p := range m.Prompts(ctx) {
			tp := tui.MCPPrompt{Command: p.Command, Description: p.Description}
			for _, a := range p.Args {
				tp.Args = append(tp.Args, a.Name)
			}
			out = append(out, tp)
		}
		return out
	}
	t.GetMCPPrompt = m.GetPrompt
}
