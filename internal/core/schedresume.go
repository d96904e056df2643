package core

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/session"
)

// schedResume records the session's schedules in its transcript and holds
// those a resumed session had, until the user restores or drops them (the
// interactive UI asks; nothing else restores them).
type schedResume struct {
	mu      sync.Mutex
	w       *session.Writer
	pending []session.Schedule
}

// startSchedResume returns the recorder of the session op; the schedules
// its transcript left active are pending only in the interactive UI.
func startSchedResume(cfg *Config, op *opened) *schedResume {
	r := &schedResume{w: op.w}
	if cfg.Interactive {
		r.pending = op.schedules
	}
	return r
}

// record writes a schedule's state change (schedule.WithRecord).
func (r *schedResume) record(state string, j schedule.Job) {
	s := session.Schedule{ID: j.ID, State: state}
	if state == schedule.Created {
		s.Kind, s.Spec, s.Cron, s.Text, s.Recurring = j.Kind, j.Spec, j.Expr, j.Prompt, j.Recurring
		if j.Every > 0 {
			s.Every = j.Every.String()
		}
	}
	r.mu.Lock()
	w := r.w
	r.mu.Unlock()
	if w != nil {
		w.AppendSchedule(s)
	}
}

// pendingText lists the pending schedules one a line; "" when none.
func (r *schedResume) pendingText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lines []string
	for _, s := range r.pending {
		lines = append(lines, s.Spec+": "+s.Text)
	}
	return strings.Join(lines, "\n")
}

// restore re-creates the pending schedules in s (yes), their firing times
// from now, or drops them; either way the old ones are recorded dropped,
// so no later resume asks again. It says what it did.
func (r *schedResume) restore(s *schedule.Schedules, yes bool) string {
	r.mu.Lock()
	pending := r.pending
	r.pending = nil
	r.mu.Unlock()
	var done []string
	for _, p := range pending {
		r.record(session.ScheduleDropped, schedule.Job{ID: p.ID})
		if !yes {
			continue
		}
		every, _ := time.ParseDuration(p.Every)
		j, err := schedule.Restore(s, p.Kind, every, p.Cron, p.Text, p.Recurring)
		if err != nil {
			done = append(done, fmt.Sprintf("%s not restored: %v", p.ID, err))
			continue
		}
		done = append(done, fmt.Sprintf("%s restored as %s (%s: %s)", p.ID, j.ID, j.Spec, j.Prompt))
	}
	if !yes {
		return fmt.Sprintf("dropped %d schedule(s) of this session", len(pending))
	}
	return strings.Join(done, "\n")
}

// switchSchedules makes the session /resume opened the one recorded to, with its
// schedules pending; the schedules of the session left are stopped
// unrecorded, so that session offers them on its own resume.
func (c *Session) switchSchedules(w *session.Writer, tr *session.Transcript) {
	if c.sched == nil || c.sess.schedRes == nil {
		return
	}
	c.sched.Reset(tr.ScheduleCount)
	r := c.sess.schedRes
	r.mu.Lock()
	r.w, r.pending = w, tr.Schedules
	r.mu.Unlock()
}

// warnSchedulesNotRestored says on stderr that a resume outside the
// interactive UI leaves the session's schedules off.
func warnSchedulesNotRestored(cfg *Config, tr *session.Transcript, stderr io.Writer) {
	if cfg.Interactive || len(tr.Schedules) == 0 {
		return
	}
	fmt.Fprintf(stderr, "ply: this session had %d schedule(s); they are not restored here: only the interactive UI restores them, after asking\n", len(tr.Schedules))
}
