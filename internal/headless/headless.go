// Package headless is the non-interactive entry layer (`ply -p`): it owns
// the agent loop — send, collect the tool calls, run them, send their
// results back as the user's next message, stop when the model asks for no
// tool — and prints the run as text, one JSON array, or stream-json lines.
//
// It does not speak HTTP, parse flags or build the layers it drives: the
// command wires those and hands them in.
package headless

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// Output formats.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Exit codes, as Qwen Code's.
const (
	ExitOK        = 0
	ExitError     = 1
	ExitAuth      = 41
	ExitInput     = 42
	ExitConfig    = 52
	ExitTurnLimit = 53
	ExitToolError = 54
	ExitBudget    = 55
	ExitCancelled = 130
)

// Rounds is the client as the loop drives it.
type Rounds interface {
	SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event]
}

// ToolRunner runs one batch of calls and returns one outcome per call, in
// call order.
type ToolRunner interface {
	RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error)
}

// Outcome is a finished call.
type Outcome struct {
	Response llm.FunctionResponse
	// Denied marks a call refused by the permission policy.
	Denied bool
	Args   string
}

// Config describes one run.
type Config struct {
	Format         string
	SessionID      string
	Model          string
	CWD            string
	Tools          []string
	Agents         []string
	MCPServers     []MCPServer
	PermissionMode string
	Version        string
	// Skills names the skills, for the init message (skills area).
	Skills []string

	// StructuredOutput names the tool whose first successful call ends
	// the run with its arguments as the result (--json-schema); empty
	// when not used.
	StructuredOutput string

	// Checkpoint, when set, is called at each round boundary so the
	// session is durable before the next step depends on it.
	Checkpoint func()
	// PartialMessages emits stream_event messages with the deltas
	// (stream-json only).
	PartialMessages bool
	// OnCompressed, when set, runs after the chat compressed its history.
	OnCompressed func()
	// OnCancel, when set, records a cancellation.
	OnCancel func(reason string)
	// KeepResults, when set, records tool results that this run will not
	// send (the batch was cut short by a cancellation, a cap or a hook):
	// they belong in the history, so that what is sent next — a resumed
	// session's first request, the SDK's next query — carries them.
	KeepResults func(parts []llm.Part)

	// Background work (notifications, schedules, teammates): Inbox, when
	// set, holds the rounds no user typed; they are sent when the model
	// stops, and the run does not end while work it holds may still post
	// one. OnRound, when set, records such a round before it is sent.
	Inbox   *inbox.Inbox
	OnRound func(inbox.Round)

	// Caps; zero means none.
	MaxSessionTurns int
	MaxToolCalls    int
	MaxWallTime     time.Duration

	Stdout, Stderr io.Writer

	// sdkSubtypes maps result subtypes onto the SDK's union (see NewSDK).
	sdkSubtypes bool
}

// Run drives the loop for prompt and returns the process exit code. The
// first round is a user query; every later one carries tool results.
func Run(ctx context.Context, cfg Config, rounds Rounds, tools ToolRunner, prompt []llm.Part) int {
	return RunFrom(ctx, cfg, rounds, tools, prompt, client.UserQuery)
}

// RunFrom is Run with the first round's type given: a resumed session may
// start with tool results or a Retry resend.
func RunFrom(ctx context.Context, cfg Config, rounds Rounds, tools ToolRunner, first []llm.Part, typ client.SendType) int {
	r := &run{cfg: cfg, start: time.Now(), out: newPrinter(cfg), firstType: typ}
	r.out.init()
	return r.loopWithCaps(ctx, rounds, tools, first)
}

// loopWithCaps runs the loop under the wall-time cap.
func (r *run) loopWithCaps(ctx context.Context, rounds Rounds, tools ToolRunner, prompt []llm.Part) int {
	if r.cfg.MaxWallTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.cfg.MaxWallTime, errWallTime)
		defer cancel()
	}
	return r.loop(ctx, rounds, tools, prompt)
}

var errWallTime = errors.New("wall-time limit reached")

type run struct {
	cfg     Config
	out     *printer
	start   time.Time
	apiTime time.Duration
	// roundStart is when the running round began; zero between rounds.
	roundStart time.Time
	turns      int
	// background counts the rounds no user started (notifications,
	// schedules, teammates): the caps count them, num_turns does not.
	background int
	toolCalls  int
	usage      llm.Usage
	denials    []Denial
	lastText   string
	firstType  client.SendType
	// inboxDone ends the interaction an inbox round started (inbox.go).
	inboxDone func()
	// structuredOut is the accepted structured output, when any.
	structuredOut json.RawMessage
	// shared counts this run's and its subagents' work against the
	// session's caps (budget.go).
	shared *budget
}

// structured returns the arguments of the first successful call of the
// structured-output tool.
func (r *run) structured(outs []Outcome) (json.RawMessage, bool) {
	if r.cfg.StructuredOutput == "" {
		return nil, false
	}
	for _, o := range outs {
		if o.Response.Name == r.cfg.StructuredOutput && !o.Response.IsError {
			return toolInput(o.Args), true
		}
	}
	return nil, false
}

func (r *run) loop(ctx context.Context, rounds Rounds, tools ToolRunner, parts []llm.Part) int {
	typ := r.firstType
	defer r.endInboxRound()
	if r.shared == nil {
		r.shared = budgetFor(ctx, r.cfg)
	}
	for {
		if r.cfg.MaxSessionTurns > 0 && r.turns >= r.cfg.MaxSessionTurns {
			return r.fail(SubtypeMaxTurns, ExitTurnLimit,
				fmt.Sprintf("reached the session turn limit (--max-session-turns %d)", r.cfg.MaxSessionTurns))
		}
		if c := r.shared.turn(); c != nil {
			return r.fail(c.subtype, c.code, c.msg)
		}
		r.turns++
		if !typ.UserPrompt() && typ.TopLevel() {
			r.background++
		}
		res := r.round(ctx, rounds, parts, typ)
		if res.exit >= 0 {
			return res.exit
		}
		if r.cfg.Checkpoint != nil {
			// The reply, and any calls it asks for, are on disk before
			// a tool runs: a crash in a tool leaves a resumable session.
			r.cfg.Checkpoint()
		}
		calls := res.calls
		if len(calls) == 0 {
			r.endInboxRound()
			next, ok := r.fromInbox(ctx)
			if !ok {
				if code, done := r.ctxDone(ctx); done {
					return code
				}
				return r.succeed()
			}
			parts, typ = []llm.Part{{Text: next.Text}}, next.Type
			continue
		}
		if r.cfg.MaxToolCalls > 0 && r.toolCalls+len(calls) > r.cfg.MaxToolCalls {
			return r.fail(SubtypeMaxToolCalls, ExitBudget,
				fmt.Sprintf("the model asked for %d more tool calls, past the limit of %d (--max-tool-calls); %d ran",
					len(calls), r.cfg.MaxToolCalls, r.toolCalls))
		}
		if c := r.shared.toolCalls(len(calls)); c != nil {
			return r.fail(c.subtype, c.code, c.msg)
		}
		r.toolCalls += len(calls)
		for _, c := range calls {
			r.out.progress("→ %s %s", c.Name, abbreviate(c.Args, 120))
		}
		// A subagent among the calls reports through this run's printer
		// and counts against this run's caps.
		tctx := context.WithValue(context.WithValue(ctx, printerKey{}, r.out), budgetKey{}, r.shared)
		outcomes, err := tools.RunTools(tctx, calls)
		if c := r.shared.reached(); c != nil {
			// A subagent ran into a cap: the session is over it too.
			return r.fail(c.subtype, c.code, c.msg)
		}
		parts = r.results(outcomes)
		if code, ok := r.batchEnd(ctx, parts, err); ok {
			return code
		}
		if obj, ok := r.structured(outcomes); ok {
			r.structuredOut = obj
			r.keep(parts)
			return r.succeed()
		}
		parts = append(parts, r.teammateParts()...)
		typ = client.ToolResult
	}
}

// results turns a batch's outcomes into the parts of the next message,
// reporting denials and errors on the way.
func (r *run) results(outcomes []Outcome) []llm.Part {
	parts := make([]llm.Part, 0, len(outcomes))
	for _, o := range outcomes {
		resp := o.Response
		parts = append(parts, llm.Part{Response: &resp})
		if o.Denied {
			r.denials = append(r.denials, Denial{ToolName: resp.Name, ToolUseID: resp.ID, ToolInput: toolInput(o.Args)})
		}
		if resp.IsError {
			r.out.progress("✗ %s: %s", resp.Name, abbreviate(resp.Output, 200))
		}
	}
	r.out.toolResults(outcomes)
	return parts
}

// batchEnd decides, after a batch, whether the run ends here and with
// which code. A run that ends keeps the batch's results (KeepResults):
// calls that finished carry their real result, whatever ended the batch.
func (r *run) batchEnd(ctx context.Context, parts []llm.Part, err error) (int, bool) {
	if err == nil && ctx.Err() == nil {
		return 0, false
	}
	// Kept before the run's end is recorded (a cancellation), so the
	// transcript reads in the order things happened.
	r.keep(parts)
	if code, done := r.ctxDone(ctx); done {
		return code, true
	}
	var stopped *scheduler.BatchStoppedError
	if errors.As(err, &stopped) {
		return r.fail(SubtypeError, ExitToolError, "stopped by a PostToolBatch hook: "+cmp.Or(stopped.Reason, "no reason given")), true
	}
	return r.fail(SubtypeError, ExitToolError, "running tools: "+err.Error()), true
}

// keep hands results that will not be sent to KeepResults.
func (r *run) keep(parts []llm.Part) {
	if len(parts) > 0 && r.cfg.KeepResults != nil {
		r.cfg.KeepResults(parts)
	}
}

type roundResult struct {
	calls []*turn.ToolCallRequest
	exit  int // -1: go on
}

func (r *run) round(ctx context.Context, rounds Rounds, parts []llm.Part, typ client.SendType) roundResult {
	var (
		// The reply's text comes whole with Finished, held once by the
		// chat; only the thought is spelled out here.
		thought   strings.Builder
		signature string
		calls     []*turn.ToolCallRequest
		finished  *turn.Finished
	)
	// A result written inside the round (an error, a loop) counts the
	// round so far; see apiDuration.
	r.roundStart = time.Now()
	defer func() {
		r.apiTime += time.Since(r.roundStart)
		r.roundStart = time.Time{}
	}()
	flush := func() {
		// A continuation (next-speaker, Stop hook) starts a new message.
		if finished == nil {
			return
		}
		r.out.assistant(thought.String(), signature, finished.Text, calls, finished)
		if t := finished.Text; t != "" {
			r.lastText = t
		}
		r.usage.Add(finished.Usage)
	}
	part := &partials{p: r.out, on: r.cfg.PartialMessages && r.cfg.Format == FormatStreamJSON}
	for ev := range rounds.SendMessageStream(ctx, parts, typ) {
		part.event(ev)
		switch e := ev.(type) {
		case turn.Content:
			if finished != nil {
				flush()
				thought.Reset()
				calls, finished = nil, nil
			}
		case turn.Thought:
			thought.WriteString(e.Text)
			if e.Signature != "" {
				signature = e.Signature
			}
		case *turn.ToolCallRequest:
			calls = append(calls, e)
		case turn.Retry:
			thought.Reset()
			calls = nil
			r.out.progress("retrying the model request (attempt %d failed: %s)", e.Attempt, abbreviate(e.Reason, 200))
		case turn.Continued:
			r.out.progress("the reply was cut (%s); continuing it (continuation %d)", abbreviate(e.Reason, 200), e.Attempt)
		case turn.ChatCompressed:
			r.out.progress("compressed the conversation: ~%d → ~%d tokens", e.TokensBefore, e.TokensAfter)
			if r.cfg.OnCompressed != nil {
				r.cfg.OnCompressed()
			}
		case turn.Finished:
			f := e
			finished = &f
		case turn.LoopDetected:
			// A loop guard or the per-turn cap: a budget of the run ran
			// out, not an error of ply's.
			return roundResult{exit: r.fail(loopSubtype(e.Guard), ExitBudget, e.Message)}
		case turn.UserCancelled:
			code, _ := r.ctxDone(ctx)
			if code == 0 {
				code = r.fail(SubtypeCancelled, ExitCancelled, "cancelled")
			}
			return roundResult{exit: code}
		case turn.Error:
			if code, ok := r.ctxDone(ctx); ok {
				return roundResult{exit: code}
			}
			return roundResult{exit: r.fail(SubtypeError, exitCodeFor(e.Err), e.Err.Error())}
		}
	}
	if code, ok := r.ctxDone(ctx); ok {
		return roundResult{exit: code}
	}
	flush()
	return roundResult{calls: calls, exit: -1}
}

// loopSubtype names the result of a loop guard's stop: the per-turn cap
// is a tool-call budget. Headless has no one to ask whether to go on past
// it (the TUI asks; an ACP entry should ask its client the same way, then
// call loopdetect.Detector.ExtendTurnCap).
func loopSubtype(guard string) string {
	if guard == string(loopdetect.GuardTurnCap) {
		return SubtypeMaxToolCalls
	}
	return SubtypeLoopDetected
}

// ctxDone maps a finished context to its result: the wall-time cap or a
// cancellation.
func (r *run) ctxDone(ctx context.Context) (int, bool) {
	if ctx.Err() == nil {
		return 0, false
	}
	var denied *deniedStop
	if errors.As(context.Cause(ctx), &denied) {
		if r.cfg.OnCancel != nil {
			r.cfg.OnCancel(denied.Error())
		}
		r.denials = append(r.denials, denied.denial)
		return r.fail(SubtypeError, ExitCancelled, denied.Error()), true
	}
	if errors.Is(context.Cause(ctx), errWallTime) {
		return r.fail(SubtypeMaxWallTime, ExitBudget,
			fmt.Sprintf("reached the wall-time limit (--max-wall-time %s)", r.cfg.MaxWallTime)), true
	}
	if r.cfg.OnCancel != nil {
		r.cfg.OnCancel("cancelled by the user")
	}
	return r.fail(SubtypeCancelled, ExitCancelled, "cancelled"), true
}

func exitCodeFor(err error) int {
	var api *llm.APIError
	if errors.As(err, &api) && api.Kind == llm.ErrAuth {
		return ExitAuth
	}
	return ExitError
}

func (r *run) succeed() int {
	r.out.result(r.resultMsg(SubtypeSuccess, false, ""))
	return ExitOK
}

func (r *run) fail(subtype string, code int, msg string) int {
	r.out.result(r.resultMsg(subtype, true, msg))
	return code
}

// totalUsage is the loop's own usage and its subagents'.
func (r *run) totalUsage() *llm.Usage {
	u := r.usage
	if r.out != nil {
		n := r.out.nestedUsage()
		u.Add(&n)
	}
	return &u
}

// apiDuration is the time spent in rounds, the running one included.
func (r *run) apiDuration() time.Duration {
	d := r.apiTime
	if !r.roundStart.IsZero() {
		d += time.Since(r.roundStart)
	}
	return d
}

func (r *run) resultMsg(subtype string, isErr bool, msg string) Result {
	res := Result{
		Type: "result", Subtype: subtype, UUID: newUUID(), SessionID: r.cfg.SessionID,
		IsError: isErr, DurationMS: time.Since(r.start).Milliseconds(),
		DurationAPIMS: r.apiDuration().Milliseconds(), NumTurns: r.turns - r.background,
		Result: r.lastText, Usage: usageOf(r.totalUsage()), PermissionDenials: r.denials,
	}
	if res.PermissionDenials == nil {
		res.PermissionDenials = []Denial{}
	}
	if r.cfg.sdkSubtypes && sdkSubtype(subtype) != subtype {
		res.Subtype, res.PlySubtype = sdkSubtype(subtype), subtype
	}
	if r.structuredOut != nil && !isErr {
		res.Result = string(r.structuredOut)
		res.StructuredOutput = r.structuredOut
	}
	if isErr {
		res.Result = ""
		res.Error = msg
	}
	return res
}

// nonNil makes a nil list print as [], as the SDKs expect.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	// Cut on a character boundary, never inside a UTF-8 sequence.
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// printer renders the run in the chosen format. It serialises writes so
// that progress from concurrent tools cannot interleave lines.
type printer struct {
	cfg  Config
	mu   sync.Mutex
	all  []any // json format: everything, printed at the end
	enc  *json.Encoder
	last string

	// A subagent's printer (see Nested) writes through its parent's,
	// marks its messages with the parent call, and keeps its result.
	sink     *printer
	parentID *string
	final    *Result
	// nested is the usage of the subagents run below this printer's
	// loop, which the result's totals include (guarded by mu: parallel
	// subagents finish concurrently).
	nested llm.Usage
}

// addNested adds a finished subagent's usage to the totals.
func (p *printer) addNested(u llm.Usage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nested.Add(&u)
}

func (p *printer) nestedUsage() llm.Usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nested
}

func newPrinter(cfg Config) *printer {
	p := &printer{cfg: cfg}
	if cfg.Format == FormatStreamJSON {
		p.enc = json.NewEncoder(cfg.Stdout)
		p.enc.SetEscapeHTML(false)
	}
	return p
}

func (p *printer) emit(v any) {
	if p.sink != nil {
		p.sink.emit(v)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.cfg.Format {
	case FormatStreamJSON:
		_ = p.enc.Encode(v)
	case FormatJSON:
		p.all = append(p.all, v)
	}
}

func (p *printer) progress(format string, args ...any) {
	if p.sink != nil {
		p.sink.progress("  ↳ "+format, args...)
		return
	}
	if p.cfg.Format != FormatText || p.cfg.Stderr == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.cfg.Stderr, format+"\n", args...)
}

func (p *printer) init() {
	if p.final != nil {
		return // a subagent is announced by its parent's tool_use
	}
	tools := p.cfg.Tools
	if tools == nil {
		tools = []string{}
	}
	p.emit(SystemInit{
		Type: "system", Subtype: "init", UUID: p.cfg.SessionID, SessionID: p.cfg.SessionID,
		CWD: p.cfg.CWD, Tools: tools, MCPServers: nonNil(p.cfg.MCPServers), Model: p.cfg.Model,
		PermissionMode: p.cfg.PermissionMode, SlashCommands: nonNil(p.cfg.Skills), Version: p.cfg.Version,
		Agents: nonNil(p.cfg.Agents), Skills: nonNil(p.cfg.Skills),
	})
}

// assistant prints one round's reply: one message per block kind, in the
// order thinking, text, tool calls; usage goes on the last.
func (p *printer) assistant(thought, signature, text string, calls []*turn.ToolCallRequest, f *turn.Finished) {
	var msgs [][]Block
	if thought != "" {
		msgs = append(msgs, []Block{{Type: "thinking", Thinking: thought, Signature: signature}})
	}
	if text != "" {
		msgs = append(msgs, []Block{{Type: "text", Text: text}})
		if p.cfg.Format == FormatText {
			p.mu.Lock()
			p.last = text
			p.mu.Unlock()
		}
	}
	if len(calls) > 0 {
		bl := make([]Block, len(calls))
		for i, c := range calls {
			bl[i] = Block{Type: "tool_use", ID: c.CallID, Name: c.Name, Input: toolInput(c.Args)}
		}
		msgs = append(msgs, bl)
	}
	// The messages of one reply share its id and its usage, as Claude
	// Code prints them (a consumer that sums usage counts an id once); the
	// last says why the reply stopped.
	msgID := newUUID()
	usage := usageOf(f.Usage)
	for i, content := range msgs {
		body := AssistantBody{ID: msgID, Type: "message", Role: "assistant", Model: p.cfg.Model, Content: content, Usage: usage}
		if i == len(msgs)-1 {
			body.StopReason = stopReason(f.Reason, len(calls) > 0)
		}
		p.emit(Assistant{Type: "assistant", UUID: newUUID(), SessionID: p.cfg.SessionID, ParentToolUseID: p.parentID, Message: body})
	}
	if text != "" && len(calls) > 0 {
		p.progress("%s", text)
	}
}

// stopReason is a reply's finish reason in the Anthropic words that
// stream-json consumers know; nil when the provider gave none.
func stopReason(r llm.FinishReason, calls bool) *string {
	var s string
	switch {
	case calls:
		s = "tool_use"
	case r == llm.FinishStop:
		s = "end_turn"
	case r == llm.FinishMaxTokens:
		s = "max_tokens"
	case r == llm.FinishContentFilter:
		s = "refusal"
	case r == llm.FinishUnspecified:
		return nil
	default:
		s = strings.ToLower(string(r))
	}
	return &s
}

func (p *printer) toolResults(outs []Outcome) {
	bl := make([]Block, len(outs))
	for i, o := range outs {
		isErr := o.Response.IsError
		bl[i] = Block{Type: "tool_result", ToolUseID: o.Response.ID, IsError: &isErr, Content: o.Response.Output}
	}
	p.emit(User{Type: "user", UUID: newUUID(), SessionID: p.cfg.SessionID, ParentToolUseID: p.parentID, Message: UserBody{Role: "user", Content: bl}})
}

func (p *printer) result(res Result) {
	if p.final != nil {
		*p.final = res
		return
	}
	p.emit(res)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.cfg.Format {
	case FormatJSON:
		enc := json.NewEncoder(p.cfg.Stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(p.all)
	case FormatText:
		if res.StructuredOutput != nil {
			_, _ = fmt.Fprintf(p.cfg.Stdout, "%s\n", res.StructuredOutput)
			return
		}
		if res.IsError {
			if p.cfg.Stderr != nil {
				fmt.Fprintf(p.cfg.Stderr, "ply: %s\n", res.Error)
			}
			return
		}
		// Written in two pieces: appending the newline would copy a
		// large answer once more.
		_, _ = io.WriteString(p.cfg.Stdout, p.last)
		if p.last != "" && !strings.HasSuffix(p.last, "\n") {
			_, _ = io.WriteString(p.cfg.Stdout, "\n")
		}
	}
}
