package chat

import (
	"context"
	"slices"
	"syscall"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// Each retry names its failure class, which telemetry counts retries by.
func TestRetryNamesItsClass(t *testing.T) {
	for name, c := range map[string]struct {
		steps []step
		want  []string
	}{
		"rate limit then server": {[]step{
			{err: &llm.APIError{Kind: llm.ErrRateLimit, Status: 429}},
			{err: &llm.APIError{Kind: llm.ErrServer, Status: 500}},
			{chunks: []llm.Chunk{text("ok"), stop()}}}, []string{RetryRateLimit, RetryServer}},
		"transport":      {[]step{{err: &netErr{syscall.ECONNRESET}}, {chunks: []llm.Chunk{text("ok"), stop()}}}, []string{RetryTransport}},
		"invalid stream": {[]step{{chunks: []llm.Chunk{stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}, []string{RetryInvalidStream}},
		"output limit": {[]step{
			{chunks: []llm.Chunk{text("x"), {FinishReason: llm.FinishMaxTokens}}},
			{chunks: []llm.Chunk{text("ok"), stop()}}}, []string{RetryOutputLimit}},
	} {
		ch := New(&scripted{steps: c.steps}, Config{Model: "m", Retry: fast}, nil)
		var got []string
		for ev, err := range ch.SendMessageStream(context.Background(), userText("hello")) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if ev.Kind == EventRetry {
				got = append(got, ev.Class)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: retry classes %q, want %q", name, got, c.want)
		}
	}
}
