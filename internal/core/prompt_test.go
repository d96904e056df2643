package core

import (
	"slices"
	"testing"
)

// A queued note goes with the next message only, and says so once.
func TestQueuedNoteGoesOnce(t *testing.T) {
	var m modeSync
	sent := 0
	m.queue("<system-reminder>changed</system-reminder>", func() { sent++ })
	if got := m.TakeReminders(); !slices.Equal(got, []string{"<system-reminder>changed</system-reminder>"}) || sent != 1 {
		t.Fatalf("first take: %q, sent %d", got, sent)
	}
	if got := m.TakeReminders(); len(got) != 0 || sent != 1 {
		t.Fatalf("second take: %q, sent %d", got, sent)
	}
}
