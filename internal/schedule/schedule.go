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
	// Every is a loop's interval or a wake-up's delay, Expr a cron
	// schedule's expression: what re-creates it (Restore).
	Every time.Duration
	Expr  string
	Next  time.Time
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
	record func(state string, j Job)

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

// Recorded states (WithRecord).
const (
	Created = "created"
	Fired   = "fired" // a one-shot went out, and is over
	Deleted = "deleted"
)

// WithRecord calls f, off any lock, when a schedule is created, a one-shot
// fires, or one is deleted; not when Close stops them, for a session that
// ends keeps its schedules to offer on resume.
func WithRecord(f func(state string, j Job)) Option { return func(s *Schedules) { s.record = f } }

// WithFirstID numbers the schedules after n, so that a resumed session's
// ids differ from those its transcript holds.
func WithFirstID(n int) Option { return func(s *Schedules) { s.n = n } }

func (s *Schedules) recordf(state string, j Job) {
	if s.record != nil {
		s.record(state, j)
	}
}

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
	return s.add(&job{Job: Job{Kind: kind, Spec: "every " + d.String(), Prompt: prompt, Recurring: true, Every: d}, every: d})
}

// Cron sends prompt at the times of expr (local time); once only, then
// deleted, unless recurring.
func (s *Schedules) Cron(expr, prompt string, recurring bool) (Job, error) {
	c, err := ParseCron(expr)
	if err != nil {
		return Job{}, err
	}
	return s.add(&job{Job: Job{Kind: KindCron, Spec: c.String(), Prompt: prompt, Recurring: recurring, Expr: c.String()}, cron: c})
}

// After sends prompt once, d from now.
func (s *Schedules) After(d time.Duration, prompt string) (Job, error) {
	return s.add(&job{Job: Job{Kind: KindWakeup, Spec: "once, in " + d.String(), Prompt: prompt, Every: d}, every: d})
}

func (s *Schedules) add(j *job) (Job, error) {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return Job{}, errors.New("the session is ending")
	case len(s.jobs) >= maxJobs:
		s.mu.Unlock()
		return Job{}, fmt.Errorf("the session has %d schedules, the most it may; delete one first", maxJobs)
	}
	s.n++
	j.ID = fmt.Sprintf("%s-%d", j.Kind, s.n)
	s.jobs[j.ID] = j
	s.armLocked(j, time.Now())
	snap := j.Job
	s.mu.Unlock()
	s.recordf(Created, snap)
	return snap, nil
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
	once := !j.Recurring
	if once {
		delete(s.jobs, j.ID)
	} else {
		s.armLocked(j, time.Now())
	}
	r := inbox.Round{Type: client.Cron, Source: "schedule " + j.ID, Text: text,
		Summary: fmt.Sprintf("%s fired (%s): %s", j.ID, spec, j.Prompt), Done: func() { s.ended(j) }}
	snap := j.Job
	s.mu.Unlock()
	if once {
		s.recordf(Fired, snap)
	}
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
	j, ok := s.jobs[id]
	if !ok {
		s.mu.Unlock()
		return false
	}
	delete(s.jobs, id)
	if j.timer.Stop() {
		s.wg.Done()
	}
	snap := j.Job
	s.mu.Unlock()
	s.recordf(Deleted, snap)
	return true
}

// Restore re-creates a schedule of a resumed session from what was
// recorded of it: its kind, interval or delay, cron expression, prompt and
// whether it recurs. Its firing times start from now.
func Restore(s *Schedules, kind string, every time.Duration, expr, prompt string, recurring bool) (Job, error) {
	switch kind {
	case KindLoop:
		return s.Every(every, prompt, KindLoop)
	case KindCron:
		return s.Cron(expr, prompt, recurring)
	case KindWakeup:
		if every <= 0 {
			return Job{}, errors.New("a wake-up's delay must be positive")
		}
		return s.After(every, prompt)
	}
	return Job{}, fmt.Errorf("unknown schedule kind %q", kind)
}

// Reset stops every schedule without recording it (the session they
// belong to was left, and keeps them to offer on its resume) and numbers
// the next after n.
func (s *Schedules) Reset(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, j := range s.jobs {
		if j.timer.Stop() {
			s.wg.Done()
		}
		delete(s.jobs, id)
	}
	s.n = n
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
