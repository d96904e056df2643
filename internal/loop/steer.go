package loop

import "github.com/plyhq/ply/internal/llm"

// Steerer holds what the user sent while the loop ran and asked to
// deliver at once ("send now"), rather than as the next prompt.
// TakeSteering returns it and forgets it; it is called on the loop's
// goroutine at each point where a user's message may go: after a batch's
// results, and when the model stops.
type Steerer interface {
	TakeSteering() []llm.Part
}

// steerNote heads the user's message when it goes out with tool results,
// so that the model does not take it for a tool's output.
const steerNote = "The user sent this message while your tools ran; take it into account from now on:"

// steering takes the user's message to deliver now, if any, headed by
// withNote's note.
func (l *run) steering(withNote bool) []llm.Part {
	if l.cfg.Steer == nil {
		return nil
	}
	parts := l.cfg.Steer.TakeSteering()
	if len(parts) == 0 || !withNote {
		return parts
	}
	return append([]llm.Part{{Text: steerNote}}, parts...)
}
