package sdk

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// scripted answers each round with the next reply text; it records what
// was sent.
type scripted struct {
	mu      sync.Mutex
	replies []string
	types   []client.SendType
	sent    [][]llm.Part
}

func (s *scripted) SendMessageStream(_ context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	s.mu.Lock()
	n := len(s.types)
	s.types = append(s.types, typ)
	s.sent = append(s.sent, parts)
	s.mu.Unlock()
	return func(yield func(turn.Event) bool) {
		text := "?"
		if n < len(s.replies) {
			text = s.replies[n]
		}
		if !yield(turn.Content{Text: text}) {
			return
		}
		yield(turn.Finished{Reason: llm.FinishStop, Text: text})
	}
}

type noTools struct{}

func (noTools) RunTools(context.Context, []*turn.ToolCallRequest) ([]headless.Outcome, error) {
	return nil, nil
}

type line struct {
	Type     string `json:"type"`
	Subtype  string `json:"subtype"`
	Source   string `json:"source"`
	NumTurns int    `json:"num_turns"`
	Result   string `json:"result"`
}

func lines(t *testing.T, out string) []line {
	var ls []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m line
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		ls = append(ls, m)
	}
	return ls
}

// recorder is a loop.Recorder that keeps the rounds it is told of.
type recorder struct {
	mu     sync.Mutex
	rounds []inbox.Round
}

func (r *recorder) Checkpoint() error { return nil }
func (r *recorder) Compressed()       {}
func (r *recorder) Cancelled(string)  {}
func (r *recorder) Keep([]llm.Part)   {}

func (r *recorder) Round(rd inbox.Round) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, rd)
}

func (r *recorder) recorded() []inbox.Round {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]inbox.Round(nil), r.rounds...)
}
