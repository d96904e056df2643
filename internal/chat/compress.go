package chat

import (
	"context"
	"strings"

	"github.com/plyhq/ply/internal/llm"
)

// keepTail is the share of the history (by estimated tokens) kept verbatim
// when compressing.
const keepTail = 0.3

const summaryPrompt = `Summarise the conversation so far for your own later use; the older messages will be replaced by this summary. Write it in these sections:
<overall_goal>the user's goal</overall_goal>
<key_knowledge>facts, conventions and constraints learned</key_knowledge>
<file_system_state>files read, created or changed, and how</file_system_state>
<recent_actions>what was done last and its outcome</recent_actions>
<current_plan>the remaining steps, marking done ones</current_plan>
Be specific: keep file paths, names, commands and error messages. Output only the summary.`

// EstimateTokens is a cheap estimate of the tokens of msgs: about four
// characters a token, the figure providers quote for English and code.
func EstimateTokens(msgs []llm.Message) int {
	n := 0
	for i := range msgs {
		n += estimateMessage(&msgs[i])
	}
	return n
}

func estimateMessage(m *llm.Message) int {
	n := 4
	for _, p := range m.Parts {
		n += len(p.Text) / 4
		if p.Call != nil {
			n += (len(p.Call.Name) + len(p.Call.Args)) / 4
		}
		if p.Response != nil {
			n += len(p.Response.Output) / 4
			n += 258 * len(p.Response.Media)
		}
		if p.Media != nil {
			n += 258
		}
	}
	return n
}

// Compress summarises the older part of the history now, whatever its
// size. It reports false when there was nothing to compress.
func (c *Chat) Compress(ctx context.Context) (StreamEvent, bool) {
	return c.compressNow(ctx, "")
}

// CompressWith is Compress with the user's instructions for the summary
// (/compress focus text): they reach the PreCompact hooks and the
// summary prompt.
func (c *Chat) CompressWith(ctx context.Context, instructions string) (StreamEvent, bool) {
	return c.compressNow(ctx, strings.TrimSpace(instructions))
}

// compressNow summarises on the user's demand and then, the window being
// known, restores the cut tool results that now fit below the share of it
// at which the history is compressed before a request.
func (c *Chat) compressNow(ctx context.Context, instructions string) (StreamEvent, bool) {
	ev, ok := c.compress(ctx, splitRule{latest: true}, "manual", instructions)
	if w := c.window(); ok && w > 0 {
		budget := int(c.cfg.CompressAt*float64(w)) - c.calibrated(fixedTokens(c.request(0)))
		if c.restore(int(restoreShare * float64(budget))) {
			ev.TokensAfter = EstimateTokens(c.History())
		}
	}
	return ev, ok
}

// compactContext is implemented by CompactHooks that add context once the
// history was compacted (the SessionStart hooks with source "compact").
type compactContext interface {
	AfterCompact(ctx context.Context, trigger string) (additionalContext string)
}

// maybeCompress shrinks the history before a request whose calibrated
// estimate passes the configured share of the context window, as relieve
// does: older tool results first, then a summary of the older history
// (restoring what it made room for), and the current turn's results
// last, never below their floor.
func (c *Chat) maybeCompress(ctx context.Context) (StreamEvent, bool) {
	window := c.window()
	if window <= 0 {
		return StreamEvent{}, false
	}
	// Estimated in place: a copy of the history a round only to learn
	// that it fits cost a round an allocation the size of the history.
	c.mu.Lock()
	fixed := fixedTokens(&llm.Request{System: c.cfg.System, Tools: c.cfg.Tools})
	raw := EstimateTokens(c.history) + fixed
	c.mu.Unlock()
	before := c.calibrated(raw)
	at := int(c.cfg.CompressAt * float64(window))
	if before < at {
		return StreamEvent{}, false
	}
	budget := at - c.calibrated(fixed) - 1
	// A summary that would keep less than keepTail of the history
	// verbatim (the current turn's results fill it) is still made, to
	// spare those results, when what it replaces is worth a request.
	rule := splitRule{latest: true, minOlder: max(budget/4, minSummarised)}
	if !c.relieve(ctx, budget, currentFloor(window), rule, false) {
		return StreamEvent{}, false
	}
	c.mu.Lock()
	raw = EstimateTokens(c.history) + fixed
	c.mu.Unlock()
	after := c.calibrated(raw)
	return StreamEvent{Kind: EventCompressed, TokensBefore: before, TokensAfter: after}, true
}

// splitRule says where a summary may end. By default it keeps keepTail of
// the history verbatim. With latest, when no boundary lies that late, it
// ends at the latest one, provided the part it replaces holds at least
// minOlder estimated tokens.
type splitRule struct {
	latest   bool
	minOlder int
}

// minSummarised is the least history, in estimated tokens, that a summary
// before a request replaces when it ends at the latest boundary.
const minSummarised = 512

func (c *Chat) compress(ctx context.Context, rule splitRule, trigger, instructions string) (StreamEvent, bool) {
	hist := c.History()
	split := splitPoint(hist, rule)
	if split <= 0 {
		return StreamEvent{}, false
	}
	if h := c.cfg.Compact; h != nil {
		if block, reason := h.PreCompact(ctx, trigger, instructions); block {
			c.log.Warn("chat: a PreCompact hook refused the compression", "trigger", trigger, "reason", reason)
			return StreamEvent{}, false
		}
	}
	before := EstimateTokens(hist)
	old := append([]llm.Message(nil), hist[:split]...)
	prompt := summaryPrompt
	if instructions != "" {
		prompt += "\n\nThe user asks the summary to follow these instructions:\n" + instructions
	}
	old = append(old, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: prompt}}})
	const system = "You summarise conversations between a user and a coding agent."
	req := &llm.Request{Model: c.cfg.Model, System: system, Messages: c.fitForSummary(old, system)}
	var sb strings.Builder
	for ch, err := range c.provider.Stream(ctx, req) {
		if err != nil {
			c.log.Warn("chat: compression request failed", "err", err)
			return StreamEvent{}, false
		}
		sb.WriteString(ch.Text)
	}
	summary := strings.TrimSpace(sb.String())
	if summary == "" {
		c.log.Warn("chat: compression returned an empty summary")
		return StreamEvent{}, false
	}
	next := []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{{Text: "This is a summary of the earlier conversation:\n\n" + summary}}},
	}
	if cc, ok := c.cfg.Compact.(compactContext); ok {
		// It goes out with every later request, as part of the summary.
		if extra := cc.AfterCompact(ctx, trigger); extra != "" {
			next[0].Parts = append(next[0].Parts, llm.Part{Text: extra})
		}
	}
	if hist[split].Role == llm.RoleUser {
		// Keep roles alternating.
		next = append(next, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "Understood. I will continue from there."}}, FinishReason: llm.FinishStop})
	}
	next = append(next, hist[split:]...)
	c.mu.Lock()
	// Only replace what was summarised: entries pushed meanwhile stay.
	if len(c.history) >= len(hist) {
		next = append(next, c.history[len(hist):]...)
		c.history = next
		c.partial = -1
	}
	c.mu.Unlock()
	if h := c.cfg.Compact; h != nil {
		h.PostCompact(ctx, trigger, summary)
	}
	after := EstimateTokens(next)
	return StreamEvent{Kind: EventCompressed, TokensBefore: before, TokensAfter: after}, true
}

// splitPoint returns the index where the verbatim tail starts, after
// keepTail of the tokens from the end: a user entry holding a prompt (not
// tool results) or a model entry, so a call is never split from its
// response. When no boundary lies that late, rule may allow the latest
// one (see splitRule). It returns 0 when no point leaves anything to
// summarise.
func splitPoint(h []llm.Message, rule splitRule) int {
	total := EstimateTokens(h)
	target := int(float64(total) * (1 - keepTail))
	acc, last, older := 0, 0, 0
	for i := range h {
		if i > 0 && boundary(&h[i]) {
			if acc >= target {
				return i
			}
			last, older = i, acc
		}
		acc += estimateMessage(&h[i])
	}
	if rule.latest && older >= rule.minOlder {
		return last
	}
	return 0
}

func boundary(m *llm.Message) bool {
	return m.Role == llm.RoleModel || !hasResponses(m)
}

func hasResponses(m *llm.Message) bool {
	for _, p := range m.Parts {
		if p.Response != nil {
			return true
		}
	}
	return false
}
