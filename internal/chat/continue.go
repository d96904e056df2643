package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/llm"
)

// MaxContinuations bounds how often one reply is continued after it was
// cut (a dropped stream after text was shown, or the output token limit).
const MaxContinuations = 3

// raisedMaxOutput is the output limit of the one retry after a reply hit
// MAX_TOKENS without a tool call.
const raisedMaxOutput = 32768

const continuePrompt = "Your previous reply was cut off. Continue it exactly where it stopped: do not repeat anything already written, do not start over, and do not comment on the interruption."

// minSeam is the shortest overlap taken as text repeated at the seam;
// shorter matches (a space, a letter) are likely chance.
const minSeam = 8

// seamWindow is how much of the previous text is compared with the start
// of the continuation.
const seamWindow = 256

// continueReply asks the model to resume the partial reply in flight and
// streams the continuation into the same history entry, dropping text the
// model repeated at the seam, so the user sees each sentence once and the
// history holds one merged reply. It tries at most MaxContinuations times.
// It returns how many continuation requests it made.
func (c *Chat) continueReply(ctx context.Context, maxOut int, why error, yield func(StreamEvent, error) bool) (int, error) {
	lastErr := why
	n := 0
	for ; n < MaxContinuations; n++ {
		rep, ok := c.partialReply()
		if !ok {
			return n, lastErr
		}
		// Tell the user why the reply pauses and is resumed; what was
		// shown stays (unlike EventRetry).
		if !yield(StreamEvent{Kind: EventContinue, Attempt: n + 1, Reason: fmt.Sprint(lastErr)}, nil) {
			c.abandonPartial()
			return n, errStopped
		}
		c.log.Info("chat: continuing a cut reply", "attempt", n+1, "after", lastErr)
		req := c.request(maxOut)
		// The request carries the partial reply (already in history) and
		// a prompt to go on; the prompt never enters history.
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: continuePrompt}}})
		seam := &seam{prev: tail(rep.text(), seamWindow)}
		err := c.streamInto(ctx, req, rep, seam, yield)
		if err == nil {
			if rep.msg.FinishReason == llm.FinishMaxTokens && !rep.hasCalls() {
				lastErr = errors.New("the reply hit the output token limit again")
				continue
			}
			if rep.msg.FinishReason == llm.FinishUnspecified {
				lastErr = &llm.InvalidStreamError{Reason: "stream ended without a finish reason"}
				continue
			}
			c.finishPartial()
			return n + 1, nil
		}
		if errors.Is(err, errStopped) || ctx.Err() != nil {
			return n + 1, err
		}
		if rep.hasCalls() || classify(err) != classTransport && classify(err) != classInvalidStream {
			return n + 1, err
		}
		lastErr = err
	}
	// Out of continuations: keep what was shown, marked as cut.
	if rep, ok := c.partialReply(); ok && rep.msg.FinishReason == llm.FinishMaxTokens {
		c.finishPartial()
		return n, nil
	}
	return n, lastErr
}

// partialReply returns the reply in flight, rebuilt from history.
func (c *Chat) partialReply() (*reply, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.partial < 0 || c.partial >= len(c.history) || c.history[c.partial].Role != llm.RoleModel {
		return nil, false
	}
	m := c.history[c.partial]
	m.Parts = append([]llm.Part(nil), m.Parts...)
	m.FinishReason = llm.FinishUnspecified
	rep := &reply{msg: m}
	if n := len(m.Parts); n > 0 {
		// Reopen trailing text, so that the continuation merges into it.
		if p := m.Parts[n-1]; p.Call == nil && p.Response == nil && p.Media == nil && (!p.Thought || p.Signature == "") {
			rep.open = &strings.Builder{}
			rep.open.WriteString(p.Text)
		}
	}
	return rep, true
}

// seam holds back the start of a continuation until it can be compared
// with the end of the previous text.
type seam struct {
	prev string
	buf  strings.Builder
	done bool
}

// filter returns the text to pass on for s, holding it back while the
// seam is undecided. flush decides with what there is.
func (s *seam) filter(text string, flush bool) string {
	if s.done {
		return text
	}
	s.buf.WriteString(text)
	got := s.buf.String()
	if !flush && len(got) < len(s.prev) {
		return ""
	}
	s.done = true
	k := overlap(s.prev, got)
	if k < minSeam {
		return got
	}
	return got[k:]
}

// overlap returns the length of the longest suffix of a that is a prefix
// of b.
func overlap(a, b string) int {
	for k := min(len(a), len(b)); k > 0; k-- {
		if strings.HasSuffix(a, b[:k]) {
			return k
		}
	}
	return 0
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
