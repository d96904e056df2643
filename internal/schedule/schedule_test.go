package schedule

import (
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rounds collects what the schedules post; finish ends each round's
// interaction at once unless hold is set.
type rounds struct {
	mu   sync.Mutex
	got  []inbox.Round
	hold bool
	c    chan struct{}
}

func (r *rounds) Post(x inbox.Round) bool {
	r.mu.Lock()
	r.got = append(r.got, x)
	hold := r.hold
	r.mu.Unlock()
	if !hold && x.Done != nil {
		x.Done()
	}
	r.c <- struct{}{}
	return true
}

func (r *rounds) all() []inbox.Round {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]inbox.Round(nil), r.got...)
}

func wait(t *testing.T, c chan struct{}, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-c:
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d firings", i)
		}
	}
}

func TestEveryFires(t *testing.T) {
	r := &rounds{c: make(chan struct{}, 16)}
	s := New(r)
	defer s.Close()
	j, err := s.Every(30*time.Millisecond, "check the build", "loop")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, r.c, 3)
	got := r.all()
	for _, x := range got[:3] {
		if x.Type != client.Cron || x.Text != "check the build" || !strings.Contains(x.Source, j.ID) {
			t.Fatalf("fired %+v", x)
		}
	}
	if l := s.List(); len(l) != 1 || l[0].ID != j.ID || l[0].Fired < 3 {
		t.Fatalf("list %+v", l)
	}
	if !s.Delete(j.ID) || s.Delete(j.ID) || len(s.List()) != 0 {
		t.Fatal("delete")
	}
}

// A firing while the last one's interaction still runs is skipped, and the
// next one that goes out says so.
func TestFiringSkippedWhilePreviousRuns(t *testing.T) {
	r := &rounds{c: make(chan struct{}, 16), hold: true}
	var (
		smu   sync.Mutex
		skips []string
	)
	s := New(r, WithOnSkip(func(j Job) { smu.Lock(); skips = append(skips, j.ID); smu.Unlock() }))
	defer s.Close()
	j, _ := s.Every(30*time.Millisecond, "poll", "loop")
	wait(t, r.c, 1)
	time.Sleep(100 * time.Millisecond) // two or three firings come while the first runs
	if n := len(r.all()); n != 1 {
		t.Fatalf("%d rounds posted while the first ran", n)
	}
	if l := s.List(); l[0].Skipped == 0 {
		t.Fatalf("no skip counted: %+v", l[0])
	}
	r.mu.Lock()
	r.hold = false
	first := r.got[0]
	r.mu.Unlock()
	first.Done()
	wait(t, r.c, 1)
	next := r.all()[1]
	if !strings.Contains(next.Text, "skipped") || !strings.HasPrefix(next.Text, "poll") {
		t.Fatalf("the next firing does not say it skipped: %q", next.Text)
	}
	s.Close()
	smu.Lock()
	defer smu.Unlock()
	if len(skips) == 0 || skips[0] != j.ID {
		t.Errorf("skips %v", skips)
	}
}

func TestOneShotAndCron(t *testing.T) {
	r := &rounds{c: make(chan struct{}, 16)}
	s := New(r)
	defer s.Close()
	j, err := s.After(20*time.Millisecond, "wake up")
	if err != nil {
		t.Fatal(err)
	}
	wait(t, r.c, 1)
	time.Sleep(60 * time.Millisecond)
	if len(r.all()) != 1 || len(s.List()) != 0 {
		t.Fatalf("a one-shot %s fired %d times; list %+v", j.ID, len(r.all()), s.List())
	}
	c, err := s.Cron("0 9 * * *", "standup", true)
	if err != nil || !strings.Contains(c.Spec, "0 9 * * *") || c.Next.Hour() != 9 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := s.Cron("61 * * * *", "x", true); err == nil {
		t.Fatal("bad cron accepted")
	}
}

func TestClosedSchedulesRefuse(t *testing.T) {
	s := New(&rounds{c: make(chan struct{}, 1)})
	s.Close()
	if _, err := s.Every(time.Second, "x", "loop"); err == nil {
		t.Fatal("a closed set took a job")
	}
}
