package session

import "time"

// Record types of background work (background.go).
const (
	typeRound      = "round"
	typeBackground = "background"
)

// Background states.
const (
	BackgroundRunning  = "running"
	BackgroundFinished = "finished"
	// BackgroundLost: the process ended while the task ran; a resume said
	// so to the model.
	BackgroundLost = "lost"
)

// Background is a state change of a background task (a subagent started
// with run_in_background): a task whose last state on load is still
// running was lost with the process that ran it.
type Background struct {
	Time  time.Time `json:"time"`
	Task  string    `json:"task"`
	Kind  string    `json:"kind"`  // "agent"
	Label string    `json:"label"` // what the user and the model know it by
	State string    `json:"state"`
}

// AppendBackground records a state change of a background task.
func (w *Writer) AppendBackground(b Background) {
	if b.Time.IsZero() {
		b.Time = time.Now().UTC()
	}
	w.appendRecord("background task", struct {
		Type string `json:"type"`
		Background
	}{typeBackground, b})
}

// AppendRound records that the next entry is a round no user typed: send
// is its type (notification, cron, teammate), source what sent it.
func (w *Writer) AppendRound(send, source string) {
	w.appendRecord("round", struct {
		Type   string    `json:"type"`
		Time   time.Time `json:"time"`
		Send   string    `json:"send"`
		Source string    `json:"source"`
	}{typeRound, time.Now().UTC(), send, source})
}

// applyBackground keeps the last state of each background task, in the
// order the tasks started.
func (t *Transcript) applyBackground(rec *record) {
	for i := range t.Background {
		if t.Background[i].Task == rec.Task {
			t.Background[i].State, t.Background[i].Time = rec.State, rec.Time
			return
		}
	}
	t.Background = append(t.Background, Background{Time: rec.Time, Task: rec.Task, Kind: rec.Kind, Label: rec.Label, State: rec.State})
}

// Running returns the background tasks whose last recorded state is
// running: on load, those the process that wrote the file lost.
func (t *Transcript) Running() []Background {
	var out []Background
	for _, b := range t.Background {
		if b.State == BackgroundRunning {
			out = append(out, b)
		}
	}
	return out
}
