package client

import (
	"context"
	"iter"
	"testing"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// replies answers the n-th request with the n-th chunk list and records
// what was sent.
type replies struct {
	n    int
	sent []llm.Message
	r    [][]llm.Chunk
}

func (s *replies) SendMessageStream(ctx context.Context, m llm.Message) iter.Seq2[chat.StreamEvent, error] {
	s.sent = append(s.sent, m)
	i := s.n
	s.n++
	return func(yield func(chat.StreamEvent, error) bool) {
		if i >= len(s.r) {
			return
		}
		for _, c := range s.r[i] {
			if !yield(chat.StreamEvent{Kind: chat.EventChunk, Chunk: c}, nil) {
				return
			}
		}
	}
}

func (s *replies) History() []llm.Message { return nil }

// countGuard trips on the n-th tool call of a round.
type countGuard struct {
	calls, resets, rounds, retries, trip int
}

func (g *countGuard) Reset()      { g.resets++; g.calls = 0 }
func (g *countGuard) StartRound() { g.rounds++ }
func (g *countGuard) Retry()      { g.retries++ }
func (g *countGuard) ToolCall(name, args string) *Loop {
	g.calls++
	if g.trip > 0 && g.calls >= g.trip {
		return &Loop{Guard: "test", Message: "looping"}
	}
	return nil
}
func (g *countGuard) Content(string) *Loop { return nil }
func (g *countGuard) Thought(string) *Loop { return nil }

func calls(n int) []llm.Chunk {
	var fc []llm.FunctionCall
	for i := 0; i < n; i++ {
		fc = append(fc, llm.FunctionCall{ID: string(rune('a' + i)), Name: "read_file", Args: `{}`})
	}
	return []llm.Chunk{{Calls: fc, FinishReason: llm.FinishToolCalls}}
}

func TestLoopDetectedStopsTheRound(t *testing.T) {
	s := &replies{r: [][]llm.Chunk{calls(3)}}
	g := &countGuard{trip: 2}
	c := New(s, Options{Loop: g})
	var seen []turn.Event
	for ev := range c.SendMessageStream(context.Background(), []llm.Part{{Text: "hi"}}, UserQuery) {
		seen = append(seen, ev)
	}
	last, ok := seen[len(seen)-1].(turn.LoopDetected)
	if !ok || last.Guard != "test" {
		t.Fatalf("last event %#v, want LoopDetected", seen[len(seen)-1])
	}
	n := 0
	for _, ev := range seen {
		if _, ok := ev.(*turn.ToolCallRequest); ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d calls passed the guard, want 1 (the tripping call is not yielded)", n)
	}
	if g.resets != 1 || g.rounds != 1 {
		t.Fatalf("resets %d rounds %d", g.resets, g.rounds)
	}
}

func TestToolResultDoesNotResetTheGuard(t *testing.T) {
	s := &replies{r: [][]llm.Chunk{{{Text: "done", FinishReason: llm.FinishStop}}}}
	g := &countGuard{}
	for range New(s, Options{Loop: g}).SendMessageStream(context.Background(), []llm.Part{{Text: "r"}}, ToolResult) {
	}
	if g.resets != 0 || g.rounds != 1 {
		t.Fatalf("resets %d rounds %d; only a user query resets", g.resets, g.rounds)
	}
}

func TestRetrySendsNoUserEntry(t *testing.T) {
	s := &replies{r: [][]llm.Chunk{{{Text: "ok", FinishReason: llm.FinishStop}}}}
	for range New(s, Options{}).SendMessageStream(context.Background(), []llm.Part{{Text: "again"}}, Retry) {
	}
	if len(s.sent) != 1 || len(s.sent[0].Parts) != 0 {
		t.Fatalf("a retry must resend history without a new user entry: %+v", s.sent)
	}
}

func TestNextSpeakerContinuation(t *testing.T) {
	s := &replies{r: [][]llm.Chunk{
		{{Text: "Here is the plan:", FinishReason: llm.FinishStop}},
		{{Text: "step one.", FinishReason: llm.FinishStop}},
	}}
	for range New(s, Options{NextSpeaker: true}).SendMessageStream(context.Background(), []llm.Part{{Text: "plan"}}, UserQuery) {
	}
	if len(s.sent) != 2 || s.sent[1].Parts[0].Text != "Please continue." {
		t.Fatalf("sent %+v, want a continuation", s.sent)
	}
	// Off by option, and not after a polite closing line.
	s2 := &replies{r: [][]llm.Chunk{{{Text: "All done. Let me know if you need more.", FinishReason: llm.FinishStop}}}}
	for range New(s2, Options{NextSpeaker: true}).SendMessageStream(context.Background(), []llm.Part{{Text: "x"}}, UserQuery) {
	}
	if len(s2.sent) != 1 {
		t.Fatalf("sent %d requests, want 1", len(s2.sent))
	}
}

func TestStopHookContinuationIsBounded(t *testing.T) {
	var r [][]llm.Chunk
	for i := 0; i < MaxTurns+5; i++ {
		r = append(r, []llm.Chunk{{Text: "stop?", FinishReason: llm.FinishStop}})
	}
	s := &replies{r: r}
	hook := func(context.Context, string) (bool, string) { return true, "keep going" }
	var errs int
	for ev := range New(s, Options{Stop: hook}).SendMessageStream(context.Background(), []llm.Part{{Text: "x"}}, UserQuery) {
		if _, ok := ev.(turn.Error); ok {
			errs++
		}
	}
	if len(s.sent) != MaxTurns || errs != 1 {
		t.Fatalf("sent %d requests and %d errors; want %d and 1", len(s.sent), errs, MaxTurns)
	}
}
