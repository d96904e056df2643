package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/schedule"
)

// /loop: send a prompt again on a timer (the session's schedules), list the
// schedules, or stop one.
func init() {
	registerCommand(slashCommand{name: "/loop",
		help: "INTERVAL PROMPT  send PROMPT every INTERVAL (30s, 5m, 2h, 1d); /loop lists, /loop stop ID stops one",
		run:  (*model).loopCommand})
}

func (m *model) loopCommand(arg string) tea.Cmd {
	s := m.schedules()
	if s == nil {
		return m.commit(m.st.dim.Render("schedules are not available in this session"))
	}
	cmd, err := schedule.ParseLoop(arg)
	switch {
	case err != nil:
		return m.commit(m.st.err.Render(sanitize("✗ " + err.Error())))
	case cmd.Stop != "":
		if !s.Delete(cmd.Stop) {
			return m.commit(m.st.err.Render(sanitize("✗ no schedule " + cmd.Stop + " (/loop lists them)")))
		}
		return m.commit(m.st.dim.Render(sanitize("stopped " + cmd.Stop)))
	case cmd.Every == 0:
		return m.commit(m.st.dim.Render(sanitize(schedule.ListText(s.List()))))
	}
	j, err := s.Every(cmd.Every, m.expandPastes(cmd.Prompt), schedule.KindLoop)
	if err != nil {
		return m.commit(m.st.err.Render(sanitize("✗ " + err.Error())))
	}
	return m.commit(m.st.dim.Render(sanitize("⟳ " + j.ID + ": every " + cmd.Every.String() + ", until /loop stop " + j.ID + " or the session ends")))
}

// Scheduler is a session with schedules: /loop starts, lists and stops
// them.
type Scheduler interface{ Schedules() *schedule.Schedules }

// ScheduleRestorer is a session opened with schedules it has neither
// restored nor dropped: PendingSchedules lists them, a line each ("" for
// none), and RestoreSchedules re-creates (yes) or drops them, saying what
// it did (schedresume.go).
type ScheduleRestorer interface {
	PendingSchedules() string
	RestoreSchedules(yes bool) string
}

func (m *model) schedules() *schedule.Schedules {
	if s, ok := m.cfg.Session.(Scheduler); ok {
		return s.Schedules()
	}
	return nil
}
