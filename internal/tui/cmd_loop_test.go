package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/turn"
)

// loopHarness is a harness whose /loop runs real schedules on an inbox
// the UI drains; slow makes the first firing's round take that long.
func loopHarness(t *testing.T, slow time.Duration) (*harness, *schedule.Schedules, func() []client.SendType) {
	var mu sync.Mutex
	var types []client.SendType
	rounds := roundsFunc(func(ctx context.Context, p []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		types = append(types, typ)
		n := len(types)
		mu.Unlock()
		if n == 1 && slow > 0 {
			select {
			case <-time.After(slow):
			case <-ctx.Done():
			}
		}
		return []turn.Event{turn.Content{Text: "pong"}, turn.Finished{Reason: llm.FinishStop}}
	})
	h := newHarness(t, rounds, nil)
	in := inbox.New()
	s := schedule.New(in)
	h.m.cfg.Inbox = in
	h.m.cfg.Session = &scheduled{s: s}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // what UI.Run's watcher does
		defer wg.Done()
		for {
			select {
			case <-in.Ready():
				h.msgs <- inboxMsg{}
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		s.Close()
		close(stop)
		wg.Wait()
	})
	return h, s, func() []client.SendType {
		mu.Lock()
		defer mu.Unlock()
		return append([]client.SendType(nil), types...)
	}
}

func TestLoopFiresThreeTimes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("takes 3 s")
	}
	h, s, types := loopHarness(t, 0)
	h.typeText("/loop 1s ping")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "loop-1: every 1s") {
		t.Fatalf("printed:\n%s", h.printed())
	}
	for i := 0; i < 3; i++ {
		h.pumpUntil(isDone)
	}
	got := types()
	if len(got) != 3 || got[0] != client.Cron || got[2] != client.Cron {
		t.Fatalf("rounds %v, want three Cron rounds", got)
	}
	if n := strings.Count(h.printed(), "schedule loop-1 (cron)"); n != 3 {
		t.Errorf("%d firings shown, want 3:\n%s", n, h.printed())
	}
	h.typeText("/loop stop loop-1")
	h.press(tea.KeyEnter, 0)
	if len(s.List()) != 0 {
		t.Fatal("/loop stop left the schedule")
	}
}

// While the first firing's round runs (2.5 s), the firings due meanwhile
// are skipped, and the next one that goes out says so.
func TestLoopSkipsWhileTheFiringRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("takes 4 s")
	}
	h, s, types := loopHarness(t, 2500*time.Millisecond)
	h.typeText("/loop 1s ping")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	if l := s.List(); len(l) != 1 || l[0].Skipped == 0 {
		t.Fatalf("nothing skipped: %+v", l)
	}
	h.pumpUntil(isDone)
	if got := types(); len(got) != 2 {
		t.Fatalf("rounds %v", got)
	}
	if !strings.Contains(h.printed(), "skipped") {
		t.Errorf("the second firing does not say firings were skipped:\n%s", h.printed())
	}
}

// scheduled is a session with schedules.
type scheduled struct {
	session
	s *schedule.Schedules
}

func (s *scheduled) Schedules() *schedule.Schedules { return s.s }
