package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// slowRounds takes d for every round, then yields evs.
type slowRounds struct {
	d   time.Duration
	evs []turn.Event
}

func (s slowRounds) SendMessageStream(context.Context, []llm.Part, client.SendType) iter.Seq[turn.Event] {
	return func(yield func(turn.Event) bool) {
		time.Sleep(s.d)
		for _, e := range s.evs {
			if !yield(e) {
				return
			}
		}
	}
}

// duration_api_ms counts the round a run ended in, however it ended.
func TestAPITimeCountsTheLastRound(t *testing.T) {
	for name, evs := range map[string][]turn.Event{
		"success": {turn.Content{Text: "hi"}, turn.Finished{}},
		"error":   {turn.Error{Err: errors.New("boom")}},
		"loop":    {turn.LoopDetected{Guard: "x", Message: "loop"}},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			cfg := Config{Format: FormatStreamJSON, Stdout: &out}
			Run(context.Background(), cfg, slowRounds{d: 40 * time.Millisecond, evs: evs}, nil, []llm.Part{{Text: "go"}})
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var res Result
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
				t.Fatal(err)
			}
			if res.DurationAPIMS < 40 {
				t.Fatalf("duration_api_ms = %d, want at least 40", res.DurationAPIMS)
			}
		})
	}
}
