package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// scheduleAsk is a harness whose session had schedules to restore; it
// returns what RestoreSchedules was called with.
func scheduleAsk(t *testing.T) (*harness, *[]bool) {
	h := newHarness(t, nil, nil)
	var answers []bool
	pending := "every 5m0s: check the deploy"
	h.m.cfg.Session = &restorer{pending: func() string { return pending }, restore: func(yes bool) string {
		answers = append(answers, yes)
		pending = ""
		if yes {
			return "restored loop-3"
		}
		return "dropped"
	}}
	return h, &answers
}

// restorer is a session opened with schedules to restore.
type restorer struct {
	session
	pending func() string
	restore func(yes bool) string
}

func (r *restorer) PendingSchedules() string         { return r.pending() }
func (r *restorer) RestoreSchedules(yes bool) string { return r.restore(yes) }

func TestResumeAsksToRestoreSchedulesYes(t *testing.T) {
	h, answers := scheduleAsk(t)
	h.m.askSchedules()
	if v := h.view(); !strings.Contains(v, "check the deploy") || !strings.Contains(v, "restore") {
		t.Fatalf("no question:\n%s", v)
	}
	h.update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if len(*answers) != 1 || !(*answers)[0] {
		t.Fatalf("answers %v", *answers)
	}
	if !strings.Contains(h.printed(), "restored loop-3") {
		t.Fatalf("printed:\n%s", h.printed())
	}
	if h.m.askSchedules(); h.m.picker != nil {
		t.Fatal("asked again after the answer")
	}
}

func TestResumeAsksToRestoreSchedulesNo(t *testing.T) {
	h, answers := scheduleAsk(t)
	h.m.askSchedules()
	h.update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if len(*answers) != 1 || (*answers)[0] {
		t.Fatalf("answers %v", *answers)
	}
	if !strings.Contains(h.printed(), "dropped") || h.m.picker != nil {
		t.Fatalf("printed:\n%s", h.printed())
	}
}
