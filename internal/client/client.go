// Package client runs one round of the agent loop: it decides what kind of
// round this is (a user query, tool results, a retry, a hook
// continuation, a timer, a background task's notification, a teammate's
// message), passes every event of the turn through the loop guards,
// and continues on its own only for the two cases of the design
// (next-speaker and Stop-hook continuation), bounded by MaxTurns.
//
// It never speaks HTTP (the chat layer does) and never runs tools or
// feeds their results back: the entry layer owns that loop.
package client

import (
	"context"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// MaxTurns bounds the client's own recursion (continuations).
const MaxTurns = 100

// SendType says why a round is sent.
type SendType int

const (
	// UserQuery: the user typed something.
	UserQuery SendType = iota
	// ToolResult: the entry layer sends tool results.
	ToolResult
	// Retry: resend the history as it stands (Ctrl+Y, an interrupted
	// prompt on resume); no new user entry is pushed.
	Retry
	// Hook: a Stop hook or a continuation; not a user prompt.
	Hook
	// Notification: a background task (a subagent, a job) finished; not
	// a user prompt.
	Notification
	// Cron: a schedule fired (/loop, the cron tools); not a user prompt.
	Cron
	// Teammate: another agent sent a message (send_message); not a user
	// prompt.
	Teammate
)

// TopLevel reports whether a round of this type starts an interaction:
// the loop guard starts afresh and the date is checked, as for a user
// query.
func (t SendType) TopLevel() bool {
	switch t {
	case UserQuery, Notification, Cron, Teammate:
		return true
	}
	return false
}

// UserPrompt reports whether the round carries what the user typed: only
// those count as prompts (num_turns, hooks, snapshots).
func (t SendType) UserPrompt() bool { return t == UserQuery }

func (t SendType) String() string {
	switch t {
	case UserQuery:
		return "user_query"
	case ToolResult:
		return "tool_result"
	case Retry:
		return "retry"
	case Hook:
		return "hook"
	case Notification:
		return "notification"
	case Cron:
		return "cron"
	case Teammate:
		return "teammate"
	}
	return "unknown"
}

// LoopGuard is the loop-detection service as the client uses it. A
// non-nil *Loop means stop.
type LoopGuard interface {
	Reset()
	StartRound()
	Retry()
	ToolCall(name, args string) *Loop
	Content(text string) *Loop
	Thought(text string) *Loop
}

// Loop describes a detected loop.
type Loop struct {
	Guard   string
	Message string
}

// StopHook is asked when the model ends the interaction; a blocking
// decision's reason becomes the next prompt.
type StopHook func(ctx context.Context, lastText string) (block bool, reason string)

// Sender is the part of the chat the client needs.
type Sender interface {
	turn.Sender
	History() []llm.Message
}

// Options configure a client.
type Options struct {
	Loop LoopGuard
	// NextSpeaker enables the "Please continue." continuation when the
	// model's last message suggests it meant to go on.
	NextSpeaker bool
	Stop        StopHook
	// OnUserQuery runs before a user query is sent (SessionStart and
	// UserPromptSubmit hooks, checkpoints), in every entry layer; it may
	// add parts, or refuse the prompt with an error (a *PromptRefused),
	// which ends the round as a turn.Error before anything is sent or
	// recorded.
	OnUserQuery func(ctx context.Context, parts []llm.Part) ([]llm.Part, error)
	// Clock, when set, tells the date: a user query sent on another day
	// than the model last saw (DateShown, then the last reminder) carries
	// a system reminder of the new date. The system prompt states the date
	// once, at start; a session that crosses midnight would keep it.
	Clock func() time.Time
	// DateShown is the date the system prompt gave the model.
	DateShown time.Time
	// Reminders, when set, gives notes for the model (the approval mode
	// changed) that ride on the next message sent, after its content.
	Reminders Reminders
}

// Reminders holds notes for the model until the next message is sent.
type Reminders interface {
	// TakeReminders returns the pending notes and forgets them.
	TakeReminders() []string
}

// PromptRefused is why a user's prompt was not sent: a hook blocked it.
type PromptRefused struct {
	// By names what refused it, Reason says why.
	By, Reason string
}

func (e *PromptRefused) Error() string {
	return "the prompt was blocked by " + e.By + ": " + e.Reason
}

// Client runs rounds against one chat.
type Client struct {
	chat Sender
	opts Options

	mu        sync.Mutex
	dateShown time.Time // the date the model last saw
}

// New returns a client over chat.
func New(c Sender, opts Options) *Client {
	return &Client{chat: c, opts: opts, dateShown: opts.DateShown}
}

// SetDateShown says the model was shown the date t: a session resumed
// in the same process (/resume) shows its own system prompt's date.
func (c *Client) SetDateShown(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dateShown = t
}

// SendMessageStream runs one round (and its continuations) and yields
// every event. The round's calls are left for the entry layer to run.
func (c *Client) SendMessageStream(ctx context.Context, parts []llm.Part, typ SendType) iter.Seq[turn.Event] {
	return func(yield func(turn.Event) bool) {
		c.round(ctx, parts, typ, MaxTurns, yield)
	}
}

func (c *Client) round(ctx context.Context, parts []llm.Part, typ SendType, turns int, yield func(turn.Event) bool) {
	if turns <= 0 {
		yield(turn.Error{Err: errMaxTurns})
		return
	}
	if typ.TopLevel() {
		if c.opts.Loop != nil {
			c.opts.Loop.Reset()
		}
		if typ.UserPrompt() && c.opts.OnUserQuery != nil {
			var err error
			if parts, err = c.opts.OnUserQuery(ctx, parts); err != nil {
				yield(turn.Error{Err: err})
				return
			}
		}
		if r, ok := c.dateReminder(); ok {
			// After the content: tool results, when a resumed turn sends
			// them with the prompt, must stay first.
			parts = append(parts[:len(parts):len(parts)], llm.Part{Text: r})
		}
	}
	if c.opts.Loop != nil {
		c.opts.Loop.StartRound()
	}
	var msg llm.Message
	if typ != Retry {
		if c.opts.Reminders != nil {
			for _, r := range c.opts.Reminders.TakeReminders() {
				parts = append(parts[:len(parts):len(parts)], llm.Part{Text: r})
			}
		}
		msg = llm.Message{Role: llm.RoleUser, Parts: parts}
	}
	t := turn.New()
	calls := 0
	var (
		finish llm.FinishReason
		last   string // the reply's text, held once by the chat
	)
	// Stopping the range early ends the stream below it.
	for ev := range t.Run(ctx, c.chat, msg) {
		if l := c.check(ev); l != nil {
			yield(*l)
			return
		}
		switch e := ev.(type) {
		case *turn.ToolCallRequest:
			calls++
		case turn.Retry:
			calls = 0
		case turn.Finished:
			finish, last = e.Reason, e.Text
		case turn.Error, turn.UserCancelled:
			yield(ev)
			return
		}
		if !yield(ev) {
			return
		}
	}
	if calls > 0 || ctx.Err() != nil {
		return
	}
	if c.opts.NextSpeaker && finish == llm.FinishStop && wantsToContinue(last) {
		c.round(ctx, []llm.Part{{Text: "Please continue."}}, Hook, turns-1, yield)
		return
	}
	if c.opts.Stop != nil {
		if block, reason := c.opts.Stop(ctx, last); block && reason != "" {
			c.round(ctx, []llm.Part{{Text: reason}}, Hook, turns-1, yield)
		}
	}
}

// dateFormat is how the date is written, as in the system prompt.
const dateFormat = "Monday, 2 January 2006"

// dateReminder returns the reminder of today's date when the model last
// saw another day, and records that it has now seen today.
func (c *Client) dateReminder() (string, bool) {
	if c.opts.Clock == nil {
		return "", false
	}
	now := c.opts.Clock()
	c.mu.Lock()
	defer c.mu.Unlock()
	y1, m1, d1 := now.Date()
	y0, m0, d0 := c.dateShown.In(now.Location()).Date()
	if !c.dateShown.IsZero() && y1 == y0 && m1 == m0 && d1 == d0 {
		return "", false
	}
	c.dateShown = now
	return "<system-reminder>The date is now " + now.Format(dateFormat) + ".</system-reminder>", true
}

// check passes ev through the loop guards.
func (c *Client) check(ev turn.Event) *turn.LoopDetected {
	g := c.opts.Loop
	if g == nil {
		return nil
	}
	var l *Loop
	switch e := ev.(type) {
	case *turn.ToolCallRequest:
		l = g.ToolCall(e.Name, e.Args)
	case turn.Content:
		l = g.Content(e.Text)
	case turn.Thought:
		l = g.Thought(e.Text)
	case turn.Retry:
		// A retry replays the last calls; without the rollback they
		// would count twice.
		g.Retry()
	}
	if l == nil {
		return nil
	}
	return &turn.LoopDetected{Guard: l.Guard, Message: l.Message}
}

// wantsToContinue is the cheap next-speaker heuristic: a reply that ends
// announcing more (a trailing colon, "I'll now ..." as its last line) was
// cut short by the model itself. "Let me know ..." is a common polite end,
// so phrases starting with "let me" do not count.
func wantsToContinue(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	if strings.HasSuffix(t, ":") {
		return true
	}
	lastLine := t[strings.LastIndexByte(t, '\n')+1:]
	l := strings.ToLower(lastLine)
	for _, p := range []string{"i'll now ", "i will now ", "next, i'll ", "now i'll "} {
		if strings.HasPrefix(l, p) && !strings.HasSuffix(l, "?") && len(l) < 160 {
			return true
		}
	}
	return false
}

type maxTurnsError struct{}

func (maxTurnsError) Error() string {
	return "the round continued itself too many times (MAX_TURNS = 100); stopping"
}

var errMaxTurns error = maxTurnsError{}

// Compile-time check that the real chat satisfies Sender.
var _ Sender = (*chat.Chat)(nil)
