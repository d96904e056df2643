package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/info"
)

// HealthChecker checks what the session depends on (/doctor). It may take a
// network round trip: the UI calls it off its own goroutine.
type HealthChecker interface {
	Doctor(ctx context.Context) []info.Check
}

func init() {
	registerCommand(slashCommand{name: "/doctor", help: "check the provider, its key and endpoint, the sandbox, trust, settings, MCP servers and ply's home", run: (*model).doctorCommand})
}

func (m *model) doctorCommand(string) tea.Cmd {
	d, ok := probe[HealthChecker](m)
	if !ok {
		return m.unavailable("/doctor")
	}
	base := m.base
	return func() tea.Msg {
		checks := d.Doctor(base)
		return funcMsg(func(m *model) tea.Cmd { return m.commit(m.renderChecks(checks)) })
	}
}

func (m *model) renderChecks(checks []info.Check) string {
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	fails, warns := 0, 0
	for _, c := range checks {
		icon, st := "✓", m.st.ok
		switch c.Status {
		case info.CheckWarn:
			icon, st = "!", m.st.warn
			warns++
		case info.CheckFail:
			icon, st = "✗", m.st.err
			fails++
		}
		b.WriteString("\n" + st.Render(icon) + " " + m.st.bold.Render(c.Name) + strings.Repeat(" ", width-len(c.Name)+2) + sanitize(c.Detail))
		if c.Fix != "" {
			b.WriteString("\n" + strings.Repeat(" ", width+4) + m.st.dim.Render("→ "+sanitize(c.Fix)))
		}
	}
	head := "ply doctor: everything checked is fine"
	switch {
	case fails > 0:
		head = "ply doctor: " + plural(fails, "problem") + " to fix"
	case warns > 0:
		head = "ply doctor: " + plural(warns, "warning")
	}
	return head + b.String()
}
