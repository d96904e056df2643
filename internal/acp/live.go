package acp

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// Live output of a running command goes to the client as the call's
// content: its last liveKeep bytes, at most every liveEvery.
const (
	liveKeep  = 4 << 10
	liveEvery = 250 * time.Millisecond
)

// liveOutput is the scheduler's live output sink for c
// (scheduler.WithLiveOutput).
func (s *session) liveOutput(c *scheduler.Call) tools.Output {
	return &liveWriter{s: s, id: sdk.ToolCallId(c.CallID)}
}

// liveWriter keeps the tail of a call's output and shows it, throttled.
type liveWriter struct {
	s  *session
	id sdk.ToolCallId

	mu   sync.Mutex
	tail []byte
	last time.Time
}

func (w *liveWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.tail = append(w.tail, p...)
	if over := len(w.tail) - liveKeep; over > 0 {
		w.tail = append(w.tail[:0], w.tail[over:]...)
	}
	due := time.Since(w.last) >= liveEvery
	var text string
	if due {
		w.last = time.Now()
		text = validTail(w.tail)
	}
	w.mu.Unlock()
	if due {
		w.s.update(context.Background(), sdk.UpdateToolCall(w.id,
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
	}
	return len(p), nil
}

// validTail is b as text without a rune cut at its start.
func validTail(b []byte) string {
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return string(b)
}
