package acp

import (
	"context"
	"iter"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// rounds yields one scripted event list per round.
type rounds [][]turn.Event

func (r *rounds) SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	evs := (*r)[0]
	*r = (*r)[1:]
	return func(yield func(turn.Event) bool) {
		for _, e := range evs {
			if !yield(e) {
				return
			}
		}
	}
}

func TestStopReasonOfFinish(t *testing.T) {
	for reason, want := range map[llm.FinishReason]sdk.StopReason{
		llm.FinishStop:          sdk.StopReasonEndTurn,
		llm.FinishMaxTokens:     sdk.StopReasonMaxTokens,
		llm.FinishContentFilter: sdk.StopReasonRefusal,
	} {
		r := &rounds{{turn.Finished{Reason: reason}}}
		s := &session{core: &Session{Rounds: r}}
		got, err := s.prompt(context.Background(), []llm.Part{{Text: "hi"}})
		if err != nil || got.StopReason != want {
			t.Errorf("finish %q: stop reason %q, %v; want %q", reason, got.StopReason, err, want)
		}
	}
}
