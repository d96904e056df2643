package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/schedule"
)

// /loop: send a prompt again on a timer (Config.Loop), list the
// schedules, or stop one.
func init() {
	registerCommand(slashCommand{name: "/loop",
		help: "INTERVAL PROMPT  send PROMPT every INTERVAL (30s, 5m, 2h, 1d); /loop lists, /loop stop ID stops one",
		run:  (*model).loopCommand})
}

func (m *model) loopCommand(arg string) tea.Cmd {
	if m.cfg.Loop == nil {
		return m.commit(m.st.dim.Render("schedules are not available in this session"))
	}
	arg = strings.TrimSpace(arg)
	first, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case arg == "":
		return m.commit(m.st.dim.Render(sanitize(m.cfg.LoopList())))
	case first == "stop":
		if rest == "" || !m.cfg.LoopStop(rest) {
			return m.commit(m.st.err.Render(sanitize("✗ no schedule " + rest + " (/loop lists them)")))
		}
		return m.commit(m.st.dim.Render(sanitize("stopped " + rest)))
	}
	every, err := schedule.ParseInterval(first)
	if err != nil {
		return m.commit(m.st.err.Render(sanitize("✗ " + err.Error())))
	}
	if rest == "" {
		return m.commit(m.st.err.Render("✗ usage: /loop INTERVAL PROMPT"))
	}
	id, err := m.cfg.Loop(every, m.expandPastes(rest))
	if err != nil {
		return m.commit(m.st.err.Render(sanitize("✗ " + err.Error())))
	}
	return m.commit(m.st.dim.Render(sanitize("⟳ " + id + ": every " + every.String() + ", until /loop stop " + id + " or the session ends")))
}
