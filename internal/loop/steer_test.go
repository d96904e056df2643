package loop

import (
	"context"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// steerQueue is a Steerer the test fills.
type steerQueue struct {
	mu    sync.Mutex
	parts []llm.Part
	takes int
}

func (q *steerQueue) put(text string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.parts = append(q.parts, llm.Part{Text: text})
}

func (q *steerQueue) TakeSteering() []llm.Part {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.takes++
	p := q.parts
	q.parts = nil
	return p
}

// A message the user sends now while tools run goes out right after the
// batch's results, in the same request, headed by a note; the turn goes on.
func TestSteeringJoinsAfterBatch(t *testing.T) {
	q := &steerQueue{}
	s := &script{replies: [][]turn.Event{
		{call("a"), turn.Finished{}},
		{turn.Content{Text: "ok, using tabs"}, turn.Finished{}},
	}}
	tl := &tools{run: func(context.Context, []*turn.ToolCallRequest) { q.put("use tabs, not spaces") }}
	res := Run(context.Background(), Config{Rounds: s, Tools: tl, Steer: q}, Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	if res.Stop != Done || len(s.sent) != 2 {
		t.Fatalf("%+v after %d sends", res, len(s.sent))
	}
	if got := partsText(s.sent[1].parts); got != "result:a,"+steerNote+",use tabs, not spaces" || s.sent[1].typ != client.ToolResult {
		t.Errorf("second send %q (%v); want the result, the note, then the user's message", got, s.sent[1].typ)
	}
}

// A message sent now that arrives after the last batch, as the model
// stops, starts the next round of the same loop as a user prompt rather
// than waiting for the loop to end.
func TestSteeringWhenTheModelStops(t *testing.T) {
	q := &steerQueue{}
	s := &script{replies: [][]turn.Event{
		{turn.Content{Text: "first answer"}, turn.Finished{}},
		{turn.Content{Text: "second answer"}, turn.Finished{}},
	}}
	q.put("and the tests too")
	res := Run(context.Background(), Config{Rounds: s, Tools: &tools{}, Steer: q}, Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	if res.Stop != Done || res.Turns != 2 || len(s.sent) != 2 {
		t.Fatalf("%+v after %d sends", res, len(s.sent))
	}
	if got := partsText(s.sent[1].parts); got != "and the tests too" || s.sent[1].typ != client.UserQuery {
		t.Errorf("second send %q (%v); want the user's message as a prompt", got, s.sent[1].typ)
	}
}
