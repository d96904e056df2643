package session

import "time"

// typeSchedule is a schedule's record (schedule.go).
const typeSchedule = "schedule"

// Schedule states.
const (
	ScheduleCreated = "created"
	// ScheduleFired: a one-shot went out, so it is over; a recurring
	// schedule's firings are not recorded.
	ScheduleFired   = "fired"
	ScheduleDeleted = "deleted"
	// ScheduleDropped: a resume asked whether to restore it and the user
	// said no (or it was restored under a new id).
	ScheduleDropped = "dropped"
)

// Schedule is a state change of one of the session's schedules (/loop,
// cron_create, loop_wakeup). A created record carries what re-creates it;
// the others need only ID and State. Ending the session records nothing:
// schedules active at the end are offered for restoring on resume.
type Schedule struct {
	Time time.Time `json:"time"`
	ID   string    `json:"schedule"`
	Kind string    `json:"kind"` // loop, cron, wakeup
	// Spec is how it is shown ("every 5m0s"); Every its interval or delay
	// (a Go duration), Cron its expression.
	Spec      string `json:"spec,omitempty"`
	Every     string `json:"every,omitempty"`
	Cron      string `json:"cron,omitempty"`
	Text      string `json:"text,omitempty"` // the prompt
	Recurring bool   `json:"recurring,omitempty"`
	State     string `json:"state"`
}

// AppendSchedule records a state change of a schedule.
func (w *Writer) AppendSchedule(s Schedule) {
	if s.Time.IsZero() {
		s.Time = time.Now().UTC()
	}
	w.appendRecord("schedule", struct {
		Type string `json:"type"`
		Schedule
	}{typeSchedule, s})
}

// applySchedule keeps the schedules active so far, in the order they were
// created: a created one is added, a fired one-shot and a deleted or
// dropped one removed.
func (t *Transcript) applySchedule(rec *record) {
	if rec.State == ScheduleCreated {
		t.ScheduleCount++
		t.Schedules = append(t.Schedules, Schedule{Time: rec.Time, ID: rec.ScheduleID, Kind: rec.Kind, Spec: rec.Spec,
			Every: rec.Every, Cron: rec.Cron, Text: rec.Text, Recurring: rec.Recurring, State: rec.State})
		return
	}
	for i, s := range t.Schedules {
		if s.ID != rec.ScheduleID || (rec.State == ScheduleFired && s.Recurring) {
			continue
		}
		t.Schedules = append(t.Schedules[:i:i], t.Schedules[i+1:]...)
		return
	}
}
