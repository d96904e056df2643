package core

import (
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/session"
)

// Restoring re-creates the pending schedules under new ids, which the
// transcript then holds instead of the old; dropping leaves none, and
// neither answer leaves anything to ask on the next resume.
func TestRestoreSchedulesYesAndNo(t *testing.T) {
	for _, yes := range []bool{true, false} {
		w, err := session.Create(t.TempDir(), t.TempDir(), "11111111-1111-1111-1111-111111111111", "m")
		if err != nil {
			t.Fatal(err)
		}
		w.AppendSchedule(session.Schedule{ID: "loop-1", Kind: "loop", Spec: "every 5m0s", Every: "5m0s", Text: "check the deploy", Recurring: true, State: session.ScheduleCreated})
		w.AppendSchedule(session.Schedule{ID: "cron-2", Kind: "cron", Spec: "0 9 * * *", Cron: "0 9 * * *", Text: "standup", Recurring: true, State: session.ScheduleCreated})
		path := w.Path()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		w, tr, err := session.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		op := &opened{w: w, schedules: tr.Schedules, schedN: tr.ScheduleCount}
		r := startSchedResume(&Config{Interactive: true}, op)
		if got := r.pendingText(); got != "every 5m0s: check the deploy\n0 9 * * *: standup" {
			t.Fatalf("pending %q", got)
		}
		s := schedule.New(inbox.New(), schedule.WithFirstID(op.schedN), schedule.WithRecord(r.record))
		said := r.restore(s, yes)
		s.Close()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if r.pendingText() != "" {
			t.Fatal("still pending after the answer")
		}
		tr, err = session.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range tr.Schedules {
			ids = append(ids, x.ID)
		}
		switch {
		case yes && (strings.Join(ids, " ") != "loop-3 cron-4" || !strings.Contains(said, "loop-1 restored as loop-3")):
			t.Errorf("yes: active %v, said %q", ids, said)
		case !yes && (len(ids) != 0 || !strings.Contains(said, "dropped 2")):
			t.Errorf("no: active %v, said %q", ids, said)
		}
	}
}
