package tui

import (
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// liveKeep is how much of a running command's output a card keeps: its
// last lines are all it shows.
const liveKeep = 4 << 10

// outputMsg says that a running call has new output; the model reads the
// writer's tail, so however fast a command writes, at most one message per
// call is in flight.
type outputMsg struct{ w *liveWriter }

// liveWriter is a running call's live output sink: it keeps the tail of
// what was written and wakes the UI, without ever blocking on it for more
// than one message.
type liveWriter struct {
	id   string
	send func(tea.Msg)

	mu      sync.Mutex
	buf     []byte
	pending bool
	total   int
}

// LiveOutput returns the sink for c's live output (a shell command's
// stdout and stderr); it is the scheduler's WithLiveOutput callback.
func (u *UI) LiveOutput(c *scheduler.Call) tools.Output {
	return &liveWriter{id: c.CallID, send: u.send}
}

func (w *liveWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.total += len(p)
	if len(p) >= liveKeep {
		w.buf = append(w.buf[:0], p[len(p)-liveKeep:]...)
	} else {
		if over := len(w.buf) + len(p) - liveKeep; over > 0 {
			w.buf = append(w.buf[:0], w.buf[over:]...)
		}
		w.buf = append(w.buf, p...)
	}
	wake := !w.pending
	w.pending = true
	w.mu.Unlock()
	if wake {
		w.send(outputMsg{w: w})
	}
	return len(p), nil
}

// take returns the kept tail and lets the next write wake the UI again.
func (w *liveWriter) take() (tail string, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = false
	return string(w.buf), w.total
}

// liveOutput copies a running call's output tail into its card.
func (m *model) liveOutput(msg outputMsg) {
	tail, total := msg.w.take()
	for _, c := range m.cards {
		if c.id == msg.w.id && !c.state.Terminal() {
			c.live, c.liveTotal = tail, total
			if c.started.IsZero() {
				c.started = time.Now()
			}
			return
		}
	}
}

// liveLines returns the last n lines of a running command's output, each
// cut to width, sanitised: it is the command's own text.
func liveLines(s string, n, width int) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:] // a progress bar redrawn in place: its last state
		}
		lines[i] = abbreviate(sanitize(l), width)
	}
	return lines
}
