package chat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

// Spiller saves the full text of a tool result that is cut to fit the
// context window, with the session, and returns where it can be read. The
// entry layer sets it (Config.Spill); without one, a cut result says that
// its full text is not available any more. name names the result
// ("tool-result-<call id>"); saving the same name again may return where
// it was saved before.
type Spiller interface {
	Save(ctx context.Context, name, text string) (Saved, error)
}

// Saved is where a Spiller saved a text: lines Line to Line+Lines-1
// (counted from 1, as read_file numbers them) of the file at Path, or the
// whole file when Lines is 0.
type Saved struct {
	Path        string
	Line, Lines int
}

// where is what a cut's note says of the saved text.
func (s Saved) where() string {
	if s.Lines == 0 {
		return "the full text is saved at " + s.Path + " (read it in ranges if you need it)"
	}
	return fmt.Sprintf("the full text is saved at %s, lines %d-%d (read_file offset %d, limit %d; read it in ranges if you need it)",
		s.Path, s.Line, s.Line+s.Lines-1, s.Line-1, s.Lines)
}

// cutLevel sizes the tool-result cut: a result longer than above bytes
// may be cut to its first head and last tail bytes.
type cutLevel struct{ above, head, tail int }

// cutLevels are tried in order, the harsher one only when the gentler one
// did not make the history fit (small windows, large tool declarations).
var cutLevels = []cutLevel{
	{above: 12 << 10, head: 4 << 10, tail: 2 << 10},
	{above: 3 << 10, head: 1 << 10, tail: 512},
	// The last resort for a window that the system prompt and the tool
	// declarations nearly fill: the reference to the full text, with a
	// line or two of each end.
	{above: 1 << 10, head: 256, tail: 128},
}

// Fit margins. A recovered request aims below this share of what the
// provider allows, since the estimate is rough; without stated numbers, it
// aims below unknownShare of the refused request.
const (
	fitShare     = 0.9
	unknownShare = 0.6
	// defaultReserve is the output kept free when neither the provider
	// nor the configuration says how much a reply may take.
	defaultReserve = 4096
)

// TooLargeError reports a request that cannot be made to fit the model's
// context window: the newest message alone is too large, or nothing more
// could be cut or summarised.
type TooLargeError struct {
	// MessageTokens is the estimated size of the newest message (0 when it
	// is not the cause), FixedTokens that of the system prompt and tool
	// declarations, and TotalTokens that of the whole request after
	// shrinking.
	MessageTokens, FixedTokens, TotalTokens int
	// Limit is the prompt size the request had to fit in (0: unknown, the
	// provider gave no numbers), Window the provider's stated window.
	Limit, Window int
	// WayBack says how to take the conversation back to where it fits
	// (Config.WayBack); "" when not known.
	WayBack string
	Err     error // the provider's refusal
}

func (e *TooLargeError) Error() string {
	limit := "the model's context window"
	if e.Window > 0 {
		limit = fmt.Sprintf("the model's context window of %d tokens", e.Window)
	}
	if e.MessageTokens > 0 {
		return fmt.Sprintf("the newest message alone is about %d tokens (plus about %d for the system prompt and tools) and does not fit %s; shorten it or split it up (provider said: %v)",
			e.MessageTokens, e.FixedTokens, limit, e.Err)
	}
	way := ""
	if e.WayBack != "" {
		way = "; " + e.WayBack
	}
	return fmt.Sprintf("the conversation does not fit %s even after cutting tool results and summarising: still about %d tokens, the target was %d%s (provider said: %v)",
		limit, e.TotalTokens, e.Limit, way, e.Err)
}

func (e *TooLargeError) Unwrap() error { return e.Err }

// window is the context window requests must fit, in tokens (0:
// unknown): the configured one, or the smaller one a provider stated when
// it refused a request as too long.
func (c *Chat) window() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stated > 0 && (c.cfg.ContextWindow <= 0 || c.stated < c.cfg.ContextWindow) {
		return c.stated
	}
	return c.cfg.ContextWindow
}

// noteWindow keeps the window a provider's refusal stated.
func (c *Chat) noteWindow(n int) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stated = n
}

// fixedTokens estimates the system prompt and tool declarations.
func fixedTokens(req *llm.Request) int {
	n := len(req.System)
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return n / 4
}

// estimateRequest is the raw (uncalibrated) estimate of a request.
func estimateRequest(req *llm.Request) int {
	return EstimateTokens(req.Messages) + fixedTokens(req)
}

// calibrated scales a raw estimate by the last observed ratio of reported
// to estimated prompt tokens.
func (c *Chat) calibrated(raw int) int {
	c.mu.Lock()
	r := c.calib
	c.mu.Unlock()
	if r == 0 {
		r = 1
	}
	return int(float64(raw) * r)
}

// calibrate records reported/estimated for later estimates, bounded so
// that one odd report cannot make every estimate absurd.
func (c *Chat) calibrate(reported, estimated int) {
	if reported <= 0 || estimated <= 0 {
		return
	}
	r := min(max(float64(reported)/float64(estimated), 0.25), 4)
	c.mu.Lock()
	c.calib = r
	c.lastPrompt, c.lastRaw = reported, estimated
	c.mu.Unlock()
}

// recoverContext shrinks the history after the provider refused the
// request as too long, as relieve does (older tool results first, then a
// summary, the current turn's results last and never below their floor),
// and reports the change. It returns an error, and no event, when the
// request still cannot fit; then it is not worth resending. A changed history is reported even then, so that it is
// recorded and a resumed session does not resend the oversized one.
func (c *Chat) recoverContext(ctx context.Context, refusal error) (StreamEvent, bool, error) {
	var api *llm.APIError
	var rep windowReport
	if errors.As(refusal, &api) {
		rep = parseWindowReport(api.Message)
	}
	req := c.request(0)
	raw := estimateRequest(req)
	if rep.Prompt > 0 {
		c.calibrate(rep.Prompt, raw)
	}
	c.noteWindow(rep.Max)
	before := c.calibrated(raw)
	fixed := c.calibrated(fixedTokens(req))
	target, limit := c.fitTarget(rep, before, fixed)

	// The newest prompt must fit on its own: nothing cuts or summarises
	// it.
	msg := 0
	if h := req.Messages; len(h) > 0 && h[len(h)-1].Role == llm.RoleUser && !hasResponses(&h[len(h)-1]) {
		msg = c.calibrated(estimateMessage(&h[len(h)-1]))
	}
	tooLarge := func(total int) *TooLargeError {
		e := &TooLargeError{TotalTokens: total, FixedTokens: fixed, Limit: target, Window: rep.Max, Err: refusal}
		if msg+fixed > target {
			e.MessageTokens = msg
		}
		return e
	}
	if msg+fixed > limit {
		return StreamEvent{}, false, tooLarge(before)
	}
	// The older history is always summarised here: the provider counts
	// differently from the estimate, and a request it refused is not
	// worth resending only a little smaller.
	window := cmpOrInt(rep.Max, c.window())
	changed := c.relieve(ctx, target-fixed, currentFloor(window), splitRule{latest: true}, true)
	if c.historyTokens() > target-fixed && c.cutCurrent(ctx, target-fixed, 0) {
		// The window cannot hold the current results at their floor.
		changed = true
	}
	after := c.calibrated(estimateRequest(c.request(0)))
	ev := StreamEvent{Kind: EventCompressed, TokensBefore: before, TokensAfter: after}
	if after > target {
		e := tooLarge(after)
		if e.MessageTokens == 0 && c.cfg.WayBack != nil {
			e.WayBack = c.cfg.WayBack(func(h []llm.Message) bool { return c.couldFit(h, target-fixed) })
		}
		return ev, changed, e
	}
	return ev, changed, nil
}

// couldFit reports whether history h could be made to fit budget
// (calibrated tokens): whether each of its entries fits, counting tool
// results at their smallest cut. Older entries can be summarised, so it
// is an entry that alone fills the window (an answer, a call's
// arguments) that keeps a history from fitting.
func (c *Chat) couldFit(h []llm.Message, budget int) bool {
	last := cutLevels[len(cutLevels)-1]
	for i := range h {
		m := h[i]
		m.Parts = slices.Clone(m.Parts)
		for j, p := range m.Parts {
			if p.Response != nil && len(p.Response.Output) > last.above {
				r := *p.Response
				r.Output = r.Output[:last.head+last.tail+cutNoteRoom]
				m.Parts[j].Response = &r
			}
		}
		if c.calibrated(estimateMessage(&m)) > budget {
			return false
		}
	}
	return true
}

// fitTarget returns the calibrated request size a recovered request aims
// below, and the hard limit of a request, past which nothing is worth
// sending. With a window known (the provider's stated one, else the
// configured one), the limit is a share of it less the output reserved.
// Without one, the limit is just under the refused size. Either way the
// history (the request less its fixed part, the system prompt and tools)
// must shrink to at most unknownShare of what it was, so that a resend is
// clearly smaller.
func (c *Chat) fitTarget(rep windowReport, refused, fixed int) (target, limit int) {
	limit = refused - 1
	window := cmpOrInt(rep.Max, c.window())
	if window > 0 {
		reserve := rep.Completion
		if reserve == 0 {
			reserve = min(cmpOrInt(c.cfg.MaxOutputTokens, defaultReserve), window/4)
		}
		limit = min(limit, int(fitShare*float64(window-reserve)))
	}
	target = min(limit, fixed+int(unknownShare*float64(max(refused-fixed, 0))))
	return max(target, 1), max(limit, 1)
}

func cmpOrInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// cutNote is the note in the middle of a cut tool result; a result cut
// before is recognised by it, so that cutting it again keeps the
// reference to the full text instead of saving the cut one over it.
var cutNote = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\n\[… (\d+) bytes of this tool result were cut to fit the context window; ([^\n]*) …\]\n`)
})

// cutOutput returns r's output cut to a head and a tail around a note
// saying how much was cut and where the whole is. The first cut of a
// result keeps its full text with the chat, so that restore can put it
// back once a summary made room.
func (c *Chat) cutOutput(ctx context.Context, r *llm.FunctionResponse, lv cutLevel) string {
	out := r.Output
	if loc := cutNote().FindStringSubmatchIndex(out); loc != nil {
		before, after := out[:loc[0]], out[loc[1]:]
		head, tail := cutPrefix(before, lv.head), cutSuffix(after, lv.tail)
		gone := atoi(out[loc[2]:loc[3]]) + len(before) - len(head) + len(after) - len(tail)
		return joinCut(head, gone, out[loc[4]:loc[5]], tail)
	}
	where := "the full text is not available any more"
	if c.cfg.Spill != nil {
		at, err := c.cfg.Spill.Save(ctx, "tool-result-"+safeName(r.ID), out)
		if err != nil {
			c.log.Warn("chat: saving a cut tool result", "id", r.ID, "err", err)
		} else {
			where = at.where()
		}
	}
	if r.ID != "" {
		c.mu.Lock()
		if c.originals == nil {
			c.originals = map[string]original{}
		}
		c.originals[r.ID] = original{full: out, where: where}
		c.mu.Unlock()
	}
	return cutText(out, where, lv)
}

// cutText cuts out, a result's full text, to lv's head and tail around
// the note saying where the whole is.
func cutText(out, where string, lv cutLevel) string {
	head := cutPrefix(out, lv.head)
	tail := cutSuffix(out[len(head):], lv.tail)
	return joinCut(head, len(out)-len(head)-len(tail), where, tail)
}

func joinCut(head string, gone int, where, tail string) string {
	return fmt.Sprintf("%s\n[… %d bytes of this tool result were cut to fit the context window; %s …]\n%s", head, gone, where, tail)
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]+`) })

func safeName(id string) string {
	s := unsafeName().ReplaceAllString(id, "_")
	if len(s) > 80 {
		s = s[:80]
	}
	if s == "" || s[0] == '.' {
		s = "r" + s
	}
	return s
}

// cutPrefix returns at most n bytes from the start of s, not splitting a
// character.
func cutPrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutSuffix returns at most n bytes from the end of s, not splitting a
// character.
func cutSuffix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
