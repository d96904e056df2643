// Package chat owns the conversation history and the only path to a model
// provider: it builds each request from the history, streams the response,
// retries failures by class with separate budgets, and keeps the history
// consistent across retries (a partial model reply is removed before a
// retry, orphaned tool calls are repaired after every push of user content).
//
// It knows nothing about tools being run, users, terminals or output
// formats; it never retries a tool, only the model request.
package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"iter"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// Provider streams one model response. Implementations must not retry on
// their own: the chat layer owns the retry policy because only it knows
// whether a chunk has already reached the caller.
type Provider interface {
	Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error]
}

// EventKind discriminates StreamEvent.
type EventKind int

const (
	// EventChunk carries a piece of the response.
	EventChunk EventKind = iota
	// EventRetry tells the caller to discard what it rendered of the last
	// attempt: a new attempt starts.
	EventRetry
	// EventCompressed reports that the history was compressed before
	// sending.
	EventCompressed
	// EventContinue reports that a reply was cut (a dropped or stalled
	// stream after text was shown, or the output limit) and is being
	// continued: what was shown stays. Attempt counts continuations (at
	// most MaxContinuations); Reason says why.
	EventContinue
)

// StreamEvent is what SendMessageStream yields.
type StreamEvent struct {
	Kind  EventKind
	Chunk llm.Chunk
	// Retry details (EventRetry), and continuation details
	// (EventContinue).
	Attempt int
	Reason  string
	// Class is a retry's failure class (RetryRateLimit, …).
	Class string
	// Compression details (EventCompressed).
	TokensBefore, TokensAfter int
}

// Config is the chat's fixed configuration.
type Config struct {
	Model           string
	System          string
	Tools           []llm.ToolDecl
	MaxOutputTokens int
	// Effort is the reasoning tier of every request ("" for the
	// provider's default); SetEffort changes it.
	Effort llm.Effort
	Retry  RetryPolicy
	// ContextWindow is the model's window in tokens (0: unknown, no
	// automatic compression).
	ContextWindow int
	// CompressAt is the share of ContextWindow at which history is
	// compressed before sending (default 0.7).
	CompressAt float64
	// Repair, when set, repairs orphaned tool calls; it runs after every
	// push of user content.
	Repair func([]llm.Message) []llm.Message
	// Spill, when set, saves the full text of a tool result cut to fit
	// the context window with the session; see Spiller.
	Spill  Spiller
	Logger *slog.Logger
	// Compact, when set, is told before and after the history is
	// summarised (the user's PreCompact and PostCompact hooks).
	Compact CompactHooks
	// WayBack, when set, says how the user can take the conversation back
	// to a point from which it fits the window, for the error of one that
	// cannot be made to (an answer that alone fills the window): fits
	// reports whether a history could be made to fit. "" when it knows no
	// such point.
	WayBack func(fits func([]llm.Message) bool) string
}

// CompactHooks hear of a summarising compression. trigger is "manual"
// (Compress, asked for by the user) or "auto" (before a request, or after
// the provider refused one as too long).
type CompactHooks interface {
	// PreCompact may refuse the compression: the history stays as it is.
	PreCompact(ctx context.Context, trigger, instructions string) (block bool, reason string)
	// PostCompact gets the summary that replaced the older history.
	PostCompact(ctx context.Context, trigger, summary string)
}

// Chat is one conversation with one provider. It is safe for one
// SendMessageStream at a time; the history accessors may be called from
// other goroutines.
type Chat struct {
	provider Provider
	cfg      Config
	log      *slog.Logger

	mu      sync.Mutex
	history []llm.Message
	pushes  int // counts pushes of user content; see PushCount
	// calib is the last ratio of reported to estimated prompt tokens (0:
	// none yet); see calibrate.
	calib float64
	// lastPrompt is the prompt size the provider last reported, and
	// lastRaw the raw estimate of that request.
	lastPrompt, lastRaw int
	// stated is the context window a provider's refusal stated, when it
	// is smaller than the configured one (0: none); see window.
	stated int
	// originals holds the full text of each tool result cut to fit the
	// window, by call id, while the history holds the result; see
	// restore.
	originals map[string]original

	// partial is the index of a model entry pushed by the attempt in
	// flight, or -1.
	partial int
	// onAppend observes every history entry once it is final.
	onAppend func(llm.Message)
}

// New returns a chat over provider with an initial history (which it
// copies).
func New(provider Provider, cfg Config, history []llm.Message) *Chat {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CompressAt == 0 {
		cfg.CompressAt = 0.7
	}
	cfg.Retry = cfg.Retry.withDefaults()
	c := &Chat{provider: provider, cfg: cfg, log: cfg.Logger, partial: -1}
	c.history = append([]llm.Message(nil), history...)
	return c
}

// OnAppend registers f to observe each history entry when it becomes final
// (user content when pushed, a model reply when its stream finished or
// was abandoned). The transcript store hooks in here.
func (c *Chat) OnAppend(f func(llm.Message)) { c.onAppend = f }

// History returns a copy of the history.
func (c *Chat) History() []llm.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]llm.Message(nil), c.history...)
}

// ReadHistory calls f with the history in place, under the chat's lock,
// for a caller that only reads it: it spares a copy of the whole history.
// f must not keep the slice, change it or call the chat.
func (c *Chat) ReadHistory(f func(h []llm.Message)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(c.history)
}

// LastReply returns the last history entry when it is a model reply: after
// a round, the reply it recorded. It costs no copy of the text.
func (c *Chat) LastReply() (llm.Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.history)
	if n == 0 || c.history[n-1].Role != llm.RoleModel {
		return llm.Message{}, false
	}
	return c.history[n-1], true
}

// SetHistory replaces the history.
func (c *Chat) SetHistory(h []llm.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.history = append([]llm.Message(nil), h...)
	c.partial = -1
	c.pruneOriginalsLocked()
}

// PushCount returns how many user entries were pushed so far. The client
// compares counts, not history lengths, to undo its own push: compression
// may shorten history in between.
func (c *Chat) PushCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pushes
}

// Config returns the chat's configuration.
func (c *Chat) Config() Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg
}

// SetModel switches the model for later requests.
func (c *Chat) SetModel(m string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Model = m
}

// SetEffort switches the reasoning tier for later requests.
func (c *Chat) SetEffort(e llm.Effort) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Effort = e
}

// SetSystem replaces the system prompt of later requests (the approval
// mode changed).
func (c *Chat) SetSystem(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.System = s
}

// SetTools replaces the tool declarations of later requests (MCP servers
// added during a session).
func (c *Chat) SetTools(t []llm.ToolDecl) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Tools = t
}

// PopLastUser removes the last entry if it is a user entry, returning it.
// Used by the client's Retry strip-and-restore.
func (c *Chat) PopLastUser() (llm.Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.history)
	if n == 0 || c.history[n-1].Role != llm.RoleUser {
		return llm.Message{}, false
	}
	m := c.history[n-1]
	c.history = c.history[:n-1]
	return m, true
}

// pushUser appends user content and then repairs orphans. The order
// matters: the content may be exactly the tool results the last round
// owed, and repairing first would synthesise spurious error responses.
func (c *Chat) pushUser(m llm.Message) {
	c.mu.Lock()
	c.history = append(c.history, m)
	c.pushes++
	if c.cfg.Repair != nil {
		c.history = c.cfg.Repair(c.history)
	}
	c.mu.Unlock()
	if c.onAppend != nil {
		c.onAppend(m)
	}
}

// popPartialIfPushed removes the model entry a failed attempt pushed, so a
// retried reply does not become a second consecutive model entry (whose
// first would hold a call that nobody answers: the wedge).
func (c *Chat) popPartialIfPushed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.partial < 0 {
		return
	}
	i := c.partial
	c.partial = -1
	if i != len(c.history)-1 || c.history[i].Role != llm.RoleModel {
		c.log.Warn("chat: partial-reply marker does not point at the last model entry; leaving history alone",
			"index", i, "len", len(c.history))
		return
	}
	c.history = c.history[:i]
}

// request snapshots the history into a provider request.
func (c *Chat) request(maxOut int) *llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	if maxOut == 0 {
		maxOut = c.cfg.MaxOutputTokens
	}
	return &llm.Request{
		Model:           c.cfg.Model,
		System:          c.cfg.System,
		Messages:        append([]llm.Message(nil), c.history...),
		Tools:           c.cfg.Tools,
		MaxOutputTokens: maxOut,
		Effort:          c.cfg.Effort,
	}
}

// reply accumulates one attempt's chunks into a model entry. The text of
// the part being streamed grows in a builder, and the part's Text is the
// builder's string, which costs no copy: a streamed response is held
// once, whatever its number of chunks, instead of being copied per chunk.
type reply struct {
	msg llm.Message
	// open accumulates the last part's text while it is still growing;
	// nil when the last part is not growing text.
	open *strings.Builder
	// given are the reply's calls as the provider sent them, with the id
	// each entered history under (see name).
	given []givenCall
}

// givenCall is a call as the provider sent it, and the id it was given.
type givenCall struct {
	id, name, args string
	as             string
}

// name gives a call the provider sent the id it enters history under,
// before it does, so that every call of a request pairs with exactly one
// result. Providers assign ids, not the model, and some reuse them (a
// backend that restarts its numbering per process): a call whose id an
// earlier turn (used) or an earlier call of this reply already holds is a
// call of its own and gets a fresh id. Only a true replay — the same id,
// name and arguments twice in one reply — is marked RepeatOf the first
// copy, to be answered without running. A call without an id gets one.
func (r *reply) name(call *llm.FunctionCall, used func(id string) bool) {
	g := givenCall{id: call.ID, name: call.Name, args: call.Args}
	if call.ID == "" {
		call.ID = NewCallID(call.Name)
	}
	for _, o := range r.given {
		if g.id != "" && o.id == g.id && o.name == g.name && o.args == g.args {
			call.RepeatOf, call.ID = o.as, NewCallID(call.Name)
			break
		}
		if g.id != "" && (o.id == g.id || o.as == g.id) {
			call.ID = NewCallID(call.Name)
		}
	}
	if call.RepeatOf == "" && call.ID == g.id && g.id != "" && used(g.id) {
		call.ID = NewCallID(call.Name)
	}
	g.as = call.ID
	r.given = append(r.given, g)
}

// holdsCallID reports whether history holds a call or result of the
// given id, the reply in flight left out. It looks the id up in place:
// building a set of every id the history holds cost a walk with a map
// insert per entry each round.
func (c *Chat) holdsCallID(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.history) - 1; i >= 0; i-- {
		if i == c.partial {
			continue
		}
		for _, p := range c.history[i].Parts {
			if p.Call != nil && p.Call.ID == id || p.Response != nil && p.Response.ID == id {
				return true
			}
		}
	}
	return false
}

// collectEvery is the reply size from which the reply's growth is
// followed by a collection (see appendText): only replies of many
// megabytes pay it, a few times each.
const collectEvery = 16 << 20

// appendText adds s to the last part if it is open, growing text of the
// same kind, else starts a new part.
func (r *reply) appendText(s string, thought bool, sig string) {
	n := len(r.msg.Parts)
	if r.open != nil && n > 0 && r.msg.Parts[n-1].Thought == thought {
		b := r.open
		grown := false
		if b.Cap()-b.Len() < len(s) {
			// Grow doubles; WriteString alone would let append grow a
			// large buffer by a quarter at a time, allocating about five
			// times the final size on the way.
			b.Grow(len(s))
			grown = true
		}
		before := b.Len()
		b.WriteString(s)
		if b.Cap() >= collectEvery && (grown || before/collectEvery != b.Len()/collectEvery) {
			// The old buffer and the stream's decoded chunks are
			// garbage: collecting them at each growth and every
			// collectEvery bytes of a huge reply keeps the heap near the
			// reply's size instead of letting it reach twice the live
			// heap (a 50 MB reply: 3.55 → about 2.5 times its size).
			runtime.GC()
		}
		r.msg.Parts[n-1].Text = r.open.String()
		if sig != "" {
			r.msg.Parts[n-1].Signature = sig
		}
		return
	}
	r.open = &strings.Builder{}
	r.open.WriteString(s)
	r.msg.Parts = append(r.msg.Parts, llm.Part{Text: r.open.String(), Thought: thought, Signature: sig})
}

func (r *reply) add(ch *llm.Chunk) {
	if ch.Thought != "" || ch.ThoughtSignature != "" {
		r.appendText(ch.Thought, true, ch.ThoughtSignature)
		if ch.ThoughtSignature != "" {
			r.open = nil // a signed thought is complete
		}
	}
	if ch.Text != "" {
		r.appendText(ch.Text, false, "")
	}
	for i := range ch.Calls {
		call := ch.Calls[i]
		r.msg.Parts = append(r.msg.Parts, llm.Part{Call: &call})
		r.open = nil
	}
	if ch.FinishReason != "" {
		r.msg.FinishReason = ch.FinishReason
	}
	if ch.Usage != nil {
		u := *ch.Usage
		r.msg.Usage = &u
	}
}

func (r *reply) hasCalls() bool {
	for _, p := range r.msg.Parts {
		if p.Call != nil {
			return true
		}
	}
	return false
}

func (r *reply) text() string { return r.msg.Text() }

// NewCallID returns name-<unix ms>-<random>, the design's form for calls
// the model gave no id.
func NewCallID(name string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return name + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + hex.EncodeToString(b[:])
}
