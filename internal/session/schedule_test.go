package session

import (
	"os"
	"testing"
)

// The schedules active at the end of a transcript are the recurring ones
// not deleted and the one-shots neither fired nor deleted; a dropped one
// (the user declined to restore it) is gone; the set survives a
// compaction, and the count of created ones numbers the next.
func TestSchedulesOnLoad(t *testing.T) {
	_, _, w := newSession(t, "sched")
	w.AppendSchedule(Schedule{ID: "loop-1", Kind: "loop", Spec: "every 5m0s", Every: "5m0s", Text: "check the deploy", Recurring: true, State: ScheduleCreated})
	w.AppendSchedule(Schedule{ID: "wakeup-2", Kind: "wakeup", Spec: "once, in 1m0s", Every: "1m0s", Text: "look again", State: ScheduleCreated})
	w.AppendSchedule(Schedule{ID: "cron-3", Kind: "cron", Spec: "0 9 * * *", Cron: "0 9 * * *", Text: "standup", Recurring: true, State: ScheduleCreated})
	w.AppendSchedule(Schedule{ID: "wakeup-4", Kind: "wakeup", Every: "1h0m0s", Text: "later", State: ScheduleCreated})
	w.AppendSchedule(Schedule{ID: "loop-5", Kind: "loop", Every: "1m0s", Text: "gone", Recurring: true, State: ScheduleCreated})
	w.AppendCompaction(nil)
	w.AppendSchedule(Schedule{ID: "wakeup-2", State: ScheduleFired})
	w.AppendSchedule(Schedule{ID: "loop-1", State: ScheduleFired}) // recurring: stays
	w.AppendSchedule(Schedule{ID: "cron-3", State: ScheduleDeleted})
	w.AppendSchedule(Schedule{ID: "loop-5", State: ScheduleDropped})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 0 {
		t.Fatalf("warnings %v", tr.Warnings)
	}
	got := tr.Schedules
	if len(got) != 2 || got[0].ID != "loop-1" || got[1].ID != "wakeup-4" {
		t.Fatalf("schedules %+v", got)
	}
	if l := got[0]; l.Kind != "loop" || l.Every != "5m0s" || l.Text != "check the deploy" || !l.Recurring || l.Spec != "every 5m0s" {
		t.Fatalf("loop %+v", l)
	}
	if got[1].Recurring || got[1].Every != "1h0m0s" {
		t.Fatalf("wakeup %+v", got[1])
	}
	if tr.ScheduleCount != 5 {
		t.Fatalf("count %d", tr.ScheduleCount)
	}
}

// Whatever schedule lines a file holds, loading does not fail, and no
// more schedules are active than were created.
func FuzzScheduleRecords(f *testing.F) {
	f.Add(`{"type":"schedule","schedule":"loop-1","kind":"loop","every":"5m0s","text":"x","recurring":true,"state":"created"}` + "\n" +
		`{"type":"schedule","schedule":"loop-1","state":"fired"}`)
	f.Add(`{"type":"schedule","schedule":"w-1","state":"created"}` + "\n" + `{"type":"schedule","schedule":"w-1","state":"fired"}` + "\n" + `{"type":"schedule","state":"dropped"}`)
	f.Add(`{"type":"schedule","recurring":"yes"}`)
	f.Fuzz(func(t *testing.T, lines string) {
		dir := t.TempDir()
		w, err := Create(dir, dir, "f", "m")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		file, err := os.OpenFile(w.Path(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = file.WriteString(lines + "\n")
		file.Close()
		tr, err := Load(w.Path())
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		if len(tr.Schedules) > tr.ScheduleCount {
			t.Fatalf("%d active of %d created", len(tr.Schedules), tr.ScheduleCount)
		}
	})
}
