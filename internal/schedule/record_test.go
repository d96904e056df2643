package schedule

import (
	"sync"
	"testing"
	"time"
)

type event struct {
	state string
	job   Job
}

// The recorder hears a creation with what re-creates the schedule, a
// one-shot's firing, a deletion, and nothing on Close; numbering goes on
// from WithFirstID.
func TestRecordAndRestore(t *testing.T) {
	r := &rounds{c: make(chan struct{}, 16)}
	var mu sync.Mutex
	var evs []event
	s := New(r, WithFirstID(4), WithRecord(func(state string, j Job) {
		mu.Lock()
		evs = append(evs, event{state, j})
		mu.Unlock()
	}))
	l, err := s.Every(time.Hour, "check", KindLoop)
	if err != nil || l.ID != "loop-5" {
		t.Fatalf("%v %+v", err, l)
	}
	if _, err := s.After(10*time.Millisecond, "wake"); err != nil {
		t.Fatal(err)
	}
	c, err := Restore(s, KindCron, 0, "0 9 * * *", "standup", true)
	if err != nil || c.Spec != "0 9 * * *" || !c.Recurring {
		t.Fatalf("%v %+v", err, c)
	}
	wait(t, r.c, 1)
	s.Delete(l.ID)
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []string{"created loop-5", "created wakeup-6", "created cron-7", "fired wakeup-6", "deleted loop-5"}
	if len(evs) != len(want) {
		t.Fatalf("events %+v", evs)
	}
	for i, e := range evs {
		if e.state+" "+e.job.ID != want[i] {
			t.Fatalf("event %d %+v, want %s", i, e, want[i])
		}
	}
	if evs[0].job.Every != time.Hour || evs[1].job.Every != 10*time.Millisecond || evs[2].job.Expr != "0 9 * * *" {
		t.Fatalf("events %+v", evs)
	}
	if _, err := Restore(s, "nope", time.Minute, "", "x", false); err == nil {
		t.Fatal("an unknown kind restored")
	}
}

// Reset stops every schedule without recording it, and numbers the next
// after n: the UI switched to another session.
func TestReset(t *testing.T) {
	var evs []string
	s := New(&rounds{c: make(chan struct{}, 1)}, WithRecord(func(state string, j Job) { evs = append(evs, state+" "+j.ID) }))
	defer s.Close()
	if _, err := s.Every(time.Hour, "a", KindLoop); err != nil {
		t.Fatal(err)
	}
	s.Reset(7)
	if len(s.List()) != 0 {
		t.Fatalf("left %+v", s.List())
	}
	j, _ := s.Every(time.Hour, "b", KindLoop)
	if j.ID != "loop-8" || len(evs) != 2 || evs[1] != "created loop-8" {
		t.Fatalf("%+v %v", j, evs)
	}
}
