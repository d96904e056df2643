package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/llm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// step is one scripted attempt: chunks then an optional error.
type step struct {
	chunks []llm.Chunk
	err    error
}

// scripted is an in-memory provider that answers attempt n with steps[n]
// and records each request.
type scripted struct {
	mu    sync.Mutex
	steps []step
	reqs  []*llm.Request
}

func (s *scripted) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs) - 1
	s.mu.Unlock()
	return func(yield func(llm.Chunk, error) bool) {
		if n >= len(s.steps) {
			yield(llm.Chunk{}, errors.New("scripted: no more steps"))
			return
		}
		st := s.steps[n]
		for _, c := range st.chunks {
			if ctx.Err() != nil {
				yield(llm.Chunk{}, ctx.Err())
				return
			}
			if !yield(c, nil) {
				return
			}
		}
		if st.err != nil {
			yield(llm.Chunk{}, st.err)
		}
	}
}

var fast = RetryPolicy{
	RateLimitBaseDelay: time.Millisecond, RateLimitMaxDelay: 5 * time.Millisecond,
	TransportBaseDelay: time.Millisecond, ContentBaseDelay: time.Millisecond, ServerBaseDelay: time.Millisecond,
}

func text(s string) llm.Chunk { return llm.Chunk{Text: s} }
func stop() llm.Chunk         { return llm.Chunk{FinishReason: llm.FinishStop} }

func userText(s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: s}}}
}

type collected struct {
	shown   string // text as a UI would show it, Retry clearing the attempt
	retries int
	err     error
}

func drain(t *testing.T, c *Chat, user llm.Message) collected {
	t.Helper()
	var got collected
	var attempt strings.Builder
	for ev, err := range c.SendMessageStream(context.Background(), user) {
		if err != nil {
			got.err = err
			continue
		}
		switch ev.Kind {
		case EventRetry:
			got.retries++
			attempt.Reset()
		case EventChunk:
			attempt.WriteString(ev.Chunk.Text)
		}
	}
	got.shown = attempt.String()
	return got
}

// checkHistory asserts the invariants that a retry must never break: roles
// alternate (no two model entries in a row) and the last entry is the
// model's when the round succeeded.
func checkHistory(t *testing.T, h []llm.Message) {
	t.Helper()
	for i := 1; i < len(h); i++ {
		if h[i].Role == llm.RoleModel && h[i-1].Role == llm.RoleModel {
			t.Fatalf("consecutive model entries at %d: %+v", i, h)
		}
	}
}

func TestRetryByFailureClass(t *testing.T) {
	reset := &netErr{syscall.ECONNRESET}
	tests := []struct {
		name     string
		policy   RetryPolicy
		steps    []step
		requests int
		retries  int
		shown    string
		wantErr  string
	}{
		{name: "clean", steps: []step{{chunks: []llm.Chunk{text("hi"), stop()}}}, requests: 1, shown: "hi"},
		{name: "reset before first chunk is replayed",
			steps:    []step{{err: reset}, {chunks: []llm.Chunk{text("ok"), stop()}}},
			requests: 2, retries: 1, shown: "ok"},
		{name: "unexpected EOF before first chunk is replayed",
			steps:    []step{{err: io.ErrUnexpectedEOF}, {chunks: []llm.Chunk{text("ok"), stop()}}},
			requests: 2, retries: 1, shown: "ok"},
		{name: "a connection closed before the first byte (EOF) is replayed",
			steps:    []step{{err: fmt.Errorf("openai: sending request: %w", io.EOF)}, {chunks: []llm.Chunk{text("ok"), stop()}}},
			requests: 2, retries: 1, shown: "ok"},
		{name: "transport budget is two replays",
			steps:    []step{{err: reset}, {err: reset}, {err: reset}, {chunks: []llm.Chunk{text("never"), stop()}}},
			requests: 3, retries: 2, wantErr: "after 3 attempts (connection)"},
		{name: "drop after text is continued, the seam shown once",
			steps: []step{
				{chunks: []llm.Chunk{text("The quick "), text("brown fox")}, err: io.ErrUnexpectedEOF},
				{chunks: []llm.Chunk{text("brown f"), text("ox jumps."), stop()}}},
			requests: 2, shown: "The quick brown fox jumps."},
		{name: "drop after a tool call is not replayed",
			steps: []step{
				{chunks: []llm.Chunk{{Calls: []llm.FunctionCall{{ID: "c", Name: "edit", Args: "{}"}}}}, err: io.ErrUnexpectedEOF},
				{chunks: []llm.Chunk{text("dup"), stop()}}},
			requests: 1, wantErr: "model request failed"},
		{name: "output limit: raised once, then continued and merged",
			steps: []step{
				{chunks: []llm.Chunk{text("discarded"), {FinishReason: llm.FinishMaxTokens}}},
				{chunks: []llm.Chunk{text("first half, "), {FinishReason: llm.FinishMaxTokens}}},
				{chunks: []llm.Chunk{text("second half."), stop()}}},
			requests: 3, retries: 1, shown: "first half, second half."},
		{name: "rate limit honours its own budget",
			steps: []step{
				{err: &llm.APIError{Kind: llm.ErrRateLimit, Status: 429, RetryAfter: time.Millisecond}},
				{err: &llm.APIError{Kind: llm.ErrRateLimit, Status: 429}},
				{chunks: []llm.Chunk{text("ok"), stop()}}},
			requests: 3, retries: 2, shown: "ok"},
		{name: "rate limit exhausted",
			policy:   RetryPolicy{RateLimitAttempts: 1},
			steps:    []step{{err: &llm.APIError{Kind: llm.ErrRateLimit, Status: 429}}, {err: &llm.APIError{Kind: llm.ErrRateLimit, Status: 429}}},
			requests: 2, retries: 1, wantErr: "after 2 attempts (rate limit)"},
		{name: "auth is not retried",
			steps:    []step{{err: &llm.APIError{Provider: "openai", Kind: llm.ErrAuth, Status: 401, Message: "bad key"}}},
			requests: 1, wantErr: "bad key"},
		{name: "empty response consumes the content budget",
			steps:    []step{{chunks: []llm.Chunk{stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}},
			requests: 2, retries: 1, shown: "ok"},
		{name: "no finish reason is retried and the partial reply removed",
			steps:    []step{{chunks: []llm.Chunk{text("cut")}}, {chunks: []llm.Chunk{text("whole"), stop()}}},
			requests: 2, retries: 1, shown: "whole"},
		{name: "content budget exhausted",
			policy:   RetryPolicy{ContentAttempts: 2},
			steps:    []step{{chunks: []llm.Chunk{stop()}}, {chunks: []llm.Chunk{stop()}}, {chunks: []llm.Chunk{stop()}}},
			requests: 3, retries: 2, wantErr: "after 3 attempts (invalid response)"},
		{name: "server error retried",
			steps:    []step{{err: &llm.APIError{Kind: llm.ErrServer, Status: 500}}, {chunks: []llm.Chunk{text("ok"), stop()}}},
			requests: 2, retries: 1, shown: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &scripted{steps: tt.steps}
			pol := fast
			if tt.policy.RateLimitAttempts != 0 {
				pol.RateLimitAttempts = tt.policy.RateLimitAttempts
			}
			if tt.policy.ContentAttempts != 0 {
				pol.ContentAttempts = tt.policy.ContentAttempts
			}
			c := New(p, Config{Model: "m", Retry: pol}, nil)
			got := drain(t, c, userText("hello"))
			if len(p.reqs) != tt.requests {
				t.Errorf("requests = %d, want %d", len(p.reqs), tt.requests)
			}
			if got.retries != tt.retries {
				t.Errorf("retries = %d, want %d", got.retries, tt.retries)
			}
			if got.shown != tt.shown {
				t.Errorf("shown = %q, want %q", got.shown, tt.shown)
			}
			if tt.wantErr == "" && got.err != nil {
				t.Fatalf("unexpected error: %v", got.err)
			}
			if tt.wantErr != "" && (got.err == nil || !strings.Contains(got.err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v, want it to contain %q", got.err, tt.wantErr)
			}
			h := c.History()
			checkHistory(t, h)
			if tt.wantErr == "" {
				if len(h) != 2 || h[1].Role != llm.RoleModel || h[1].Text() != tt.shown || h[1].FinishReason != llm.FinishStop {
					t.Fatalf("history = %+v", h)
				}
			}
			// Every retried request carries the same history: the partial
			// reply of a failed attempt was removed. A continuation carries
			// the partial reply and the prompt to go on.
			for i, r := range p.reqs {
				n := len(r.Messages)
				cont := n == 3 && r.Messages[1].Role == llm.RoleModel && r.Messages[2].Text() == continuePrompt
				if n != 1 && !cont {
					t.Errorf("request %d carries %d messages: %+v", i, n, r.Messages)
				}
			}
		})
	}
}

type netErr struct{ errno syscall.Errno }

func (e *netErr) Error() string { return "read tcp: " + e.errno.Error() }
func (e *netErr) Unwrap() error { return e.errno }

func TestBadToolArgsRetriedThenPassedOn(t *testing.T) {
	bad := llm.Chunk{Calls: []llm.FunctionCall{{ID: "c1", Name: "read_file", Args: `{"file_path": `}}, FinishReason: llm.FinishToolCalls}
	p := &scripted{steps: []step{{chunks: []llm.Chunk{bad}}, {chunks: []llm.Chunk{bad}}}}
	c := New(p, Config{Retry: RetryPolicy{ContentAttempts: 1, ContentBaseDelay: time.Millisecond}}, nil)
	got := drain(t, c, userText("go"))
	if got.err != nil {
		t.Fatalf("error: %v", got.err)
	}
	if len(p.reqs) != 2 || got.retries != 1 {
		t.Fatalf("requests %d, retries %d; want 2, 1", len(p.reqs), got.retries)
	}
	h := c.History()
	if len(h) != 2 || len(h[1].Calls()) != 1 || h[1].Calls()[0].Args != `{"file_path": ` {
		t.Fatalf("history should keep the call for the scheduler to reject: %+v", h)
	}
}

func TestCallsWithoutIDsAreNamedInHistory(t *testing.T) {
	p := &scripted{steps: []step{{chunks: []llm.Chunk{{Calls: []llm.FunctionCall{{Name: "glob", Args: `{}`}}, FinishReason: llm.FinishToolCalls}}}}}
	c := New(p, Config{Retry: fast}, nil)
	var yielded string
	for ev, err := range c.SendMessageStream(context.Background(), userText("x")) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == EventChunk && len(ev.Chunk.Calls) == 1 {
			yielded = ev.Chunk.Calls[0].ID
		}
	}
	h := c.History()
	if !strings.HasPrefix(yielded, "glob-") || h[1].Calls()[0].ID != yielded {
		t.Fatalf("yielded id %q, history id %q", yielded, h[1].Calls()[0].ID)
	}
}

func TestCancelKeepsPartialWithoutFinishReason(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("partial "), text("more")}}}}
	c := New(p, Config{Retry: fast}, nil)
	var err error
	for ev, e := range c.SendMessageStream(ctx, userText("x")) {
		if e != nil {
			err = e
		}
		if ev.Kind == EventChunk {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	h := c.History()
	if len(h) != 2 || h[1].FinishReason != llm.FinishUnspecified || !strings.HasPrefix(h[1].Text(), "partial") {
		t.Fatalf("history = %+v", h)
	}
	if len(p.reqs) != 1 {
		t.Fatalf("a cancelled request must not be retried: %d requests", len(p.reqs))
	}
}

func TestContextLengthCompressesOnceThenRetries(t *testing.T) {
	long := strings.Repeat("word ", 400)
	hist := []llm.Message{
		userText("first " + long), {Role: llm.RoleModel, Parts: []llm.Part{{Text: "a " + long}}, FinishReason: llm.FinishStop},
		userText("second " + long), {Role: llm.RoleModel, Parts: []llm.Part{{Text: "b " + long}}, FinishReason: llm.FinishStop},
	}
	tooLong := &llm.APIError{Kind: llm.ErrContextLength, Status: 400, Message: "maximum context length"}
	p := &scripted{steps: []step{
		{err: tooLong},
		{chunks: []llm.Chunk{text("SUMMARY"), stop()}}, // the compression request
		{chunks: []llm.Chunk{text("answer"), stop()}},
	}}
	c := New(p, Config{Retry: fast}, hist)
	var compressed int
	var err error
	for ev, e := range c.SendMessageStream(context.Background(), userText("third")) {
		if e != nil {
			err = e
		}
		if ev.Kind == EventCompressed {
			compressed++
			if ev.TokensAfter >= ev.TokensBefore {
				t.Errorf("compression grew the history: %d → %d", ev.TokensBefore, ev.TokensAfter)
			}
		}
	}
	if err != nil || compressed != 1 || len(p.reqs) != 3 {
		t.Fatalf("err %v, compressed %d, requests %d", err, compressed, len(p.reqs))
	}
	last := p.reqs[2].Messages
	if !strings.Contains(last[0].Text(), "SUMMARY") || last[len(last)-1].Text() != "third" {
		t.Fatalf("retried request after compression: %+v", last)
	}
	checkHistory(t, c.History())

	// A second context-length error is not compressed again.
	p2 := &scripted{steps: []step{{err: tooLong}, {chunks: []llm.Chunk{text("S"), stop()}}, {err: tooLong}}}
	c2 := New(p2, Config{Retry: fast}, hist)
	got := drain(t, c2, userText("third"))
	if got.err == nil || len(p2.reqs) != 3 {
		t.Fatalf("err %v, requests %d", got.err, len(p2.reqs))
	}
}

func TestRepairRunsAfterPush(t *testing.T) {
	var seen []llm.Message
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast, Repair: func(h []llm.Message) []llm.Message {
		seen = append([]llm.Message(nil), h...)
		return h
	}}, nil)
	drain(t, c, userText("pushed"))
	if len(seen) != 1 || seen[0].Text() != "pushed" {
		t.Fatalf("repair saw %+v; it must run after the push", seen)
	}
}

func TestAutoCompressionAtShareOfWindow(t *testing.T) {
	long := strings.Repeat("token ", 200) // ~300 estimated tokens per entry
	var hist []llm.Message
	for i := 0; i < 6; i++ {
		hist = append(hist, userText("q "+long), llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "a " + long}}, FinishReason: llm.FinishStop})
	}
	est := EstimateTokens(hist)
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	// The window is set so the history sits just past 70% of it.
	c := New(p, Config{Retry: fast, ContextWindow: int(float64(est) / 0.72)}, hist)
	var ev *StreamEvent
	for e, err := range c.SendMessageStream(context.Background(), userText("next")) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == EventCompressed {
			ev = &e
		}
	}
	if ev == nil || ev.TokensAfter >= ev.TokensBefore {
		t.Fatalf("compression event %+v", ev)
	}
	if len(p.reqs) != 2 || len(p.reqs[1].Messages) >= len(hist) {
		t.Fatalf("requests %d; the second should carry a shorter history", len(p.reqs))
	}
	checkHistory(t, c.History())

	// Well below the share: no compression request.
	p2 := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop()}}}}
	c2 := New(p2, Config{Retry: fast, ContextWindow: est * 10}, hist)
	drain(t, c2, userText("next"))
	if len(p2.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(p2.reqs))
	}
}

func TestFailedContinuationKeepsWhatWasShown(t *testing.T) {
	cut := step{chunks: []llm.Chunk{text("The quick brown fox")}, err: io.ErrUnexpectedEOF}
	p := &scripted{steps: []step{cut, {err: io.ErrUnexpectedEOF}, {err: io.ErrUnexpectedEOF}, {err: io.ErrUnexpectedEOF}}}
	c := New(p, Config{Retry: fast}, nil)
	got := drain(t, c, userText("go"))
	var fe *FailedError
	if !errors.As(got.err, &fe) || !strings.Contains(got.err.Error(), "continuing a cut reply") {
		t.Fatalf("err = %v", got.err)
	}
	if len(p.reqs) != 1+MaxContinuations {
		t.Fatalf("%d requests, want %d", len(p.reqs), 1+MaxContinuations)
	}
	h := c.History()
	checkHistory(t, h)
	if len(h) != 2 || h[1].Text() != "The quick brown fox" || h[1].FinishReason != llm.FinishUnspecified {
		t.Fatalf("history %+v: the shown text should stay, marked as cut", h)
	}
}

// Within one reply, a call id repeated with the same name and arguments
// is a replay (marked RepeatOf the first copy); repeated for another call
// it is a call of its own with a fresh id; an id history holds is never
// reused.
func TestReplyNamesCalls(t *testing.T) {
	var rep reply
	calls := []llm.FunctionCall{
		{ID: "c1", Name: "run", Args: `{"a":1}`},
		{ID: "c1", Name: "run", Args: `{"a":2}`},
		{ID: "c1", Name: "run", Args: `{"a":1}`},
		{ID: "old", Name: "run", Args: `{"a":3}`},
		{Name: "run", Args: `{}`},
	}
	used := map[string]bool{"old": true}
	for i := range calls {
		rep.name(&calls[i], func(id string) bool { return used[id] })
	}
	if calls[0].ID != "c1" || calls[0].RepeatOf != "" {
		t.Errorf("first call: %+v", calls[0])
	}
	if calls[1].ID == "c1" || calls[1].RepeatOf != "" {
		t.Errorf("another call under the same id must run under a fresh one: %+v", calls[1])
	}
	if calls[2].RepeatOf != "c1" || calls[2].ID == "c1" {
		t.Errorf("a replay must be marked as a repeat of the first copy: %+v", calls[2])
	}
	if calls[3].ID == "old" || calls[3].RepeatOf != "" {
		t.Errorf("an id history holds must not be reused: %+v", calls[3])
	}
	if calls[4].ID == "" {
		t.Error("a call without an id got none")
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c.ID] {
			t.Errorf("id %q given twice", c.ID)
		}
		seen[c.ID] = true
	}
}
