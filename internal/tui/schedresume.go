package tui

import tea "charm.land/bubbletea/v2"

// askSchedules asks, when the session just opened or resumed had
// schedules that were neither restored nor dropped, whether to restore
// them (ScheduleRestorer); y restores, n drops,
// Esc leaves the question for the next resume.
func (m *model) askSchedules() {
	r, ok := m.cfg.Session.(ScheduleRestorer)
	if !ok {
		return
	}
	pending := r.PendingSchedules()
	if pending == "" {
		return
	}
	answer := func(yes bool) tea.Cmd {
		return m.commit(m.st.dim.Render(sanitizeLines(r.RestoreSchedules(yes))))
	}
	m.picker = &picker{confirm: &confirmBox{
		title:    "This session had schedules; restore them (new firing times from now)?",
		commands: splitLines(pending),
		plain:    true,
		hint:     "y/Enter restore them · n drop them · Esc ask on the next resume",
		yes:      func() tea.Cmd { return answer(true) },
		no:       func() tea.Cmd { return answer(false) },
	}}
}
