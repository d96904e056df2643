// Package schedule owns a session's schedules: prompts sent again on a
// timer (/loop), at the times of a cron expression, or once after a delay
// (the model's own wake-ups). A firing posts a Cron round to the session's
// inbox, which the entry layer sends at its next round boundary; a firing
// that comes while the previous one's interaction still runs is skipped,
// and the next one that goes out says how many were.
//
// Schedules live with the session: Close stops them all.
package schedule

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
)

// Poster takes the rounds the schedules fire (the session's inbox).
type Poster interface {
	Post(inbox.Round) bool
}

// Job kinds.
const (
	KindLoop   = "loop"   // /loop: every interval
	KindCron   = "cron"   // cron_create
	KindWakeup = "wakeup" // loop_wakeup: once, after a delay
)

// maxJobs bounds a session's schedules.
const maxJobs = 50

// Job is one schedule as listed.
type Job struct {
	ID, Kind string
	// Spec says when it fires: "every 5m", a cron expression, "once".
	Spec      string
	Prompt    string
	Recurring bool
	Next      time.Time
	// Fired and Skipped count its firings sent and skipped; Running says
	// its last firing's interaction has not ended.
	Fired, Skipped int
	Running        bool
}

type job struct {
	Job
	every        time.Duration
	cron         *Cron
	timer        *time.Timer
	skippedSince int // skipped since the last firing went out
}

// Schedules is a session's set of schedules.
type Schedules struct {
	in     Poster
	onSkip func(Job)

	mu     sync.Mutex
	jobs   map[string]*job
	n      int
	closed bool
	wg     sync.WaitGroup // armed timers
}

// Option configures Schedules.
type Option func(*Schedules)

// WithOnSkip calls f, off any lock, each time a firing is skipped.
func WithOnSkip(f func(Job)) Option { return func(s *Schedules) { s.onSkip = f } }

// New returns an empty set posting to in.
func New(in Poster, opts ...Option) *Schedules {
	s := &Schedules{in: in, jobs: map[string]*job{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Every sends prompt every d, first d from now.
func (s *Schedules) Every(d time.Duration, prompt, kind string) (Job, error) {
	if d <= 0 {
		return Job{}, errors.New("the interval must be positive")
	}
	return s.add(&job{Job: Job{Kind: kind, Spec: "every " + d.String(), Prompt: prompt, Recurring: true}, every: d})
}

// Cron sends prompt at the times of expr (local time); once only, then
// deleted, unless recurring.
func (s *Schedules) Cron(expr, prompt string, recurring bool) (Job, error) {
	c, err := ParseCron(expr)
	if err != nil {
		return Job{}, err
	}
	return s.add(&job{Job: Job{Kind: KindCron, Spec: c.String(), Prompt: prompt, Recurring: recurring}, cron: c})
}

// After sends prompt once, d from now.
func (s *Schedules) After(d time.Duration, prompt string) (Job, error) {
	return s.add(&job{Job: Job{Kind: KindWakeup, Spec: "once, in " + d.String(), Prompt: prompt}, every: d})
}

func (s *Schedules) add(j *job) (Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return Job{}, errors.New("the session is ending")
	case len(s.jobs) >= maxJobs:
		return Job{}, fmt.Errorf("the session has %d schedules, the most it may; delete one first", maxJobs)
	}
	s.n++
	j.ID = fmt.Sprintf("%s-%d", j.Kind, s.n)
	s.jobs[j.ID] = j
	s.armLocked(j, time.Now())
	return j.Job, nil
}

// armLocked sets j's timer for its next firing after now.
func (s *Schedules) armLocked(j *job, now time.Time) {
	if j.cron != nil {
		j.Next = j.cron.Next(now)
	} else {
		j.Next = now.Add(j.every)
	}
	s.wg.Add(1)
	j.timer = time.AfterFunc(j.Next.Sub(now), func() {
		defer s.wg.Done()
		s.fire(j)
	})
}

func (s *Schedules) fire(j *job) {
	s.mu.Lock()
	if s.closed || s.jobs[j.ID] != j {
		s.mu.Unlock()
		return
	}
	if j.Running {
		j.Skipped++
		j.skippedSince++
		s.armLocked(j, time.Now())
		snap, onSkip := j.Job, s.onSkip
		s.mu.Unlock()
		if onSkip != nil {
			onSkip(snap)
		}
		return
	}
	text, spec := j.Prompt, j.Spec
	if j.skippedSince > 0 {
		text += fmt.Sprintf("\n\n(Schedule %s: %d earlier firing(s) were skipped because the one before was still running.)", j.ID, j.skippedSince)
		spec += fmt.Sprintf("; %d skipped while the last one ran", j.skippedSince)
	}
	j.skippedSince = 0
	j.Fired++
	j.Running = true
	if j.Recurring {
		s.armLocked(j, time.Now())
	} else {
		delete(s.jobs, j.ID)
	}
	r := inbox.Round{Type: client.Cron, Source: "schedule " + j.ID, Text: text,
		Summary: fmt.Sprintf("%s fired (%s): %s", j.ID, spec, j.Prompt), Done: func() { s.ended(j) }}
	s.mu.Unlock()
	s.in.Post(r)
}

func (s *Schedules) ended(j *job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j.Running = false
}

// List returns the schedules, oldest first.
func (s *Schedules) List() []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Job, 0, len(s.jobs))
	for _, j := range s.jobs {
		out = append(out, j.Job)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// Delete stops and removes the schedule id; false when there is none.
func (s *Schedules) Delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return false
	}
	delete(s.jobs, id)
	if j.timer.Stop() {
		s.wg.Done()
	}
	return true
}

// Close stops every schedule and waits for a firing in progress.
func (s *Schedules) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for id, j := range s.jobs {
		if j.timer.Stop() {
			s.wg.Done()
		}
		delete(s.jobs, id)
	}
	s.mu.Unlock()
	s.wg.Wait()
}
