// Package sdk is the SDK's stream-json session (`--input-format
// stream-json`): the protocol the Qwen Code and Claude Code SDKs speak to
// their CLIs. User messages and control requests arrive as JSON lines on
// stdin; messages, control requests of ply's own (can_use_tool approvals,
// mcp_message) and control responses go out as JSON lines on stdout. It
// is a peer of package acp, the other protocol a client drives ply by.
//
// It owns the protocol: reading and queueing the SDK's lines, answering
// control requests, asking the SDK's approvals, announcing the session
// once and mapping results onto the SDK's subtypes. Each query's loop runs
// through headless.Drive, which prints the query's messages; this package
// does not run the loop or tools itself, build the layers it drives,
// parse flags or touch the -p printers, and what a control request changes
// in the session it asks of Controls, which the command wires.
package sdk

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
)

// Session speaks the stream-json protocol both ways, as the Qwen Code and
// Claude Code SDKs drive their CLIs: user messages and control requests
// arrive as JSON lines on stdin; messages, control requests of our own
// (can_use_tool) and control responses go out as JSON lines on stdout.
type Session struct {
	// cfg is the session's; initialize's servers, tools and agents
	// change it (guarded by mu).
	cfg headless.Config
	// out prints every line: the queries' messages and the control
	// traffic, serialised.
	out headless.Sink

	mu      sync.Mutex
	pending map[string]chan controlAnswer // can_use_tool requests awaiting the SDK
	cancel  context.CancelCauseFunc       // the query in flight, for interrupt
	nextID  atomic.Int64

	// resumed is what a resumed session still owes the model (the
	// answers to calls its last turn left open, a prompt to resend),
	// until the first query or continue_last_turn takes it.
	resumed  *query
	queries  chan query
	initSent bool // owned by the query goroutine
	// initializing counts initialize requests still being handled.
	initializing sync.WaitGroup

	// usage and ran count this process's queries.
	usage llm.Usage
	ran   int
}

// query is one run of the loop: its first round's content and type.
type query struct {
	parts []llm.Part
	typ   client.SendType
	// uuid is the SDK's id of the user message, for rewind_files.
	uuid string
	// round, when set, is the inbox round the query sends (inbox.go).
	round *inbox.Round
}

// Resume hands the SDK what a resumed session left unfinished: first is
// sent with the first query (answers to open calls go before its text) or,
// on continue_last_turn, alone with type typ. Call it before Serve.
func (s *Session) Resume(first []llm.Part, typ client.SendType) {
	if len(first) == 0 && typ != client.Retry {
		return // the session ended cleanly: nothing is owed
	}
	s.resumed = &query{parts: first, typ: typ}
}

type controlAnswer struct {
	resp json.RawMessage
	err  string
}

// New returns the protocol endpoint for cfg (its Format must be
// stream-json); it prints on cfg.Stdout.
func New(cfg headless.Config) *Session {
	return &Session{cfg: cfg, out: sdkResults{headless.NewStreamJSON(cfg.Stdout)}, pending: map[string]chan controlAnswer{}}
}

// sdkResults prints results with their subtypes mapped onto the SDK's
// union (see sdkSubtype).
type sdkResults struct{ headless.Sink }

func (s sdkResults) Result(res headless.Result) {
	if sub := sdkSubtype(res.Subtype); sub != res.Subtype {
		res.Subtype, res.PlySubtype = sub, res.Subtype
	}
	s.Sink.Result(res)
}

// inMessage is any line the SDK sends.
type inMessage struct {
	Type      string          `json:"type"`
	UUID      string          `json:"uuid"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	Message   struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// Serve reads in until it ends, running one query per user message, and
// returns the exit code: 0 when stdin closed cleanly, 130 when ctx was
// cancelled, 42 when a line was not understood.
func (s *Session) Serve(ctx context.Context, rounds headless.Rounds, tools headless.ToolRunner, in io.Reader, ctl Controls) int {
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		// The reader goroutine owns in; it ends when in does.
		defer close(lines)
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(strings.TrimSpace(string(line))) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr <- err
				}
				return
			}
		}
	}()

	s.queries = make(chan query, 16)
	done := make(chan struct{})
	go func() {
		// One query at a time, in arrival order; later messages queue.
		defer close(done)
		for {
			q, ok := s.nextQuery()
			if !ok {
				return
			}
			s.initializing.Wait()
			if !s.initSent {
				s.mu.Lock()
				init := headless.InitMessage(s.cfg)
				s.mu.Unlock()
				s.out.Message(init)
				s.initSent = true
			}
			qctx, cancel := context.WithCancelCause(ctx)
			s.mu.Lock()
			s.cancel = cancel
			s.mu.Unlock()
			if r := ctl.rewinder(); q.uuid != "" && r != nil {
				r.MarkUserMessage(q.uuid)
			}
			in := loop.Input{Parts: q.parts, Type: q.typ}
			if q.round != nil {
				in.Rounds = []inbox.Round{*q.round}
			}
			s.mu.Lock()
			cfg := s.cfg
			s.mu.Unlock()
			used := headless.Drive(qctx, cfg, s.out, rounds, tools, in)
			cancel(nil)
			s.mu.Lock()
			s.cancel = nil
			s.usage.Add(&used)
			s.ran++
			s.mu.Unlock()
		}
	}()
	code := exitcode.OK
loop:
	for {
		select {
		case <-ctx.Done():
			code = exitcode.Cancelled
			break loop
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			var m inMessage
			if err := json.Unmarshal(line, &m); err != nil {
				s.warn("ignoring a line that is not JSON: %v", err)
				continue
			}
			switch m.Type {
			case "user":
				parts, err := userParts(m.Message.Content)
				if err != nil {
					s.warn("ignoring a user message: %v", err)
					continue
				}
				q := s.withResumed(parts)
				q.uuid = m.UUID
				s.enqueue(q)
			case "control_request":
				s.handleControl(m, ctl)
			case "control_response":
				s.deliver(m.Response)
			default:
				s.warn("ignoring a message of unknown type %q", m.Type)
			}
		}
	}
	close(s.queries)
	// Answer any approval still waiting, so the query can end.
	s.failPending("the SDK closed its input")
	<-done
	select {
	case err := <-readErr:
		fmt.Fprintf(s.cfg.Stderr, "ply: reading standard input: %v\n", err)
		return exitcode.Error
	default:
	}
	return code
}

// enqueue queues q.
func (s *Session) enqueue(q query) { s.queries <- q }

// withResumed is the query for a user message: after a resumed session's
// interrupted batch, the lost calls' answers go first, in the same message.
func (s *Session) withResumed(parts []llm.Part) query {
	r := s.resumed
	s.resumed = nil
	if r != nil && r.typ == client.ToolResult {
		return query{parts: append(append([]llm.Part(nil), r.parts...), parts...), typ: client.UserQuery}
	}
	return query{parts: parts, typ: client.UserQuery}
}

func (s *Session) warn(format string, args ...any) {
	if s.cfg.Stderr != nil {
		fmt.Fprintf(s.cfg.Stderr, "ply: "+format+"\n", args...)
	}
}

// userParts reads a user message's content: a string, or blocks of text.
func userParts(raw json.RawMessage) ([]llm.Part, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if strings.TrimSpace(text) == "" {
			return nil, errors.New("empty content")
		}
		return []llm.Part{{Text: text}}, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("content is neither a string nor content blocks: %w", err)
	}
	var parts []llm.Part
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, llm.Part{Text: b.Text})
		}
	}
	if len(parts) == 0 {
		return nil, errors.New("no text blocks in content")
	}
	return parts, nil
}

type controlResponseBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Response  any    `json:"response,omitempty"`
	Error     string `json:"error,omitempty"`
}

func (s *Session) respond(id string, resp any, errMsg string) {
	body := controlResponseBody{Subtype: "success", RequestID: id, Response: resp}
	if errMsg != "" {
		body = controlResponseBody{Subtype: "error", RequestID: id, Error: errMsg}
	}
	s.out.Message(map[string]any{"type": "control_response", "response": body})
}

// deliver routes the SDK's answer to a control request of ours.
func (s *Session) deliver(raw json.RawMessage) {
	var body struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Response  json.RawMessage `json:"response"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		s.warn("ignoring a malformed control response: %v", err)
		return
	}
	s.mu.Lock()
	ch := s.pending[body.RequestID]
	delete(s.pending, body.RequestID)
	s.mu.Unlock()
	if ch == nil {
		s.warn("ignoring a control response for unknown request %q", body.RequestID)
		return
	}
	a := controlAnswer{resp: body.Response}
	if body.Subtype == "error" {
		a.err = body.Error
		if a.err == "" {
			a.err = "the SDK answered with an error"
		}
	}
	ch <- a
}

func (s *Session) failPending(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ch := range s.pending {
		ch <- controlAnswer{err: reason}
		delete(s.pending, id)
	}
}

// ask sends a control request of ours and waits for the SDK's answer.
func (s *Session) ask(ctx context.Context, req map[string]any) (json.RawMessage, error) {
	id := "ply-" + strconv.FormatInt(s.nextID.Add(1), 10)
	ch := make(chan controlAnswer, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	s.out.Message(map[string]any{"type": "control_request", "request_id": id, "request": req})
	select {
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return nil, ctx.Err()
	case a := <-ch:
		if a.err != "" {
			return nil, errors.New(a.err)
		}
		return a.resp, nil
	}
}

// Approve asks the SDK whether c may run (can_use_tool). It implements
// scheduler.Approver.
func (s *Session) Approve(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error) {
	resp, err := s.ask(ctx, map[string]any{
		"subtype": "can_use_tool", "tool_name": c.Name, "input": headless.ToolInput(string(c.Params)),
		"tool_use_id": c.CallID, "permission_suggestions": nil,
	})
	if err != nil {
		return scheduler.Decision{}, err
	}
	d, interrupt, err := canUseToolDecision(resp)
	if err == nil && interrupt {
		s.stopForDenial(c, d.Reason)
	}
	return d, err
}

// canUseToolDecision reads the SDK's answer to can_use_tool; interrupt is
// a denial's request to stop the query. An allow's updatedInput replaces
// the model's arguments: the scheduler validates it against the tool's
// schema and checks it against the policy again, as it does a
// PermissionRequest hook's.
func canUseToolDecision(resp json.RawMessage) (d scheduler.Decision, interrupt bool, err error) {
	var r struct {
		Behavior     string          `json:"behavior"`
		Message      string          `json:"message"`
		Interrupt    bool            `json:"interrupt"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return d, false, fmt.Errorf("malformed can_use_tool answer: %w", err)
	}
	switch r.Behavior {
	case "allow":
		d.Outcome = scheduler.OutcomeAllowOnce
		if u := bytes.TrimSpace(r.UpdatedInput); len(u) > 0 && !bytes.Equal(u, []byte("null")) {
			d.UpdatedInput, d.RewrittenBy = string(u), "The SDK's canUseTool callback"
		}
		return d, false, nil
	case "deny":
		return scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: r.Message}, r.Interrupt, nil
	}
	return d, false, fmt.Errorf("can_use_tool answer has behavior %q, want allow or deny", r.Behavior)
}

// deniedStop is the cause of a query stopped by a denial with interrupt.
type deniedStop struct {
	denial  headless.Denial
	message string
}

func (d *deniedStop) Error() string { return "the SDK denied " + d.denial.ToolName + ": " + d.message }

// Denial makes deniedStop a headless.DenialCause.
func (d *deniedStop) Denial() headless.Denial { return d.denial }

// stopForDenial ends the query in flight: the SDK denied c and asked for
// the run to stop there.
func (s *Session) stopForDenial(c *scheduler.Call, message string) {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel(&deniedStop{
			denial:  headless.Denial{ToolName: c.Name, ToolUseID: c.CallID, ToolInput: headless.ToolInput(string(c.Params))},
			message: cmp.Or(message, "no reason given"),
		})
	}
}

// sdkSubtype maps a result subtype onto the SDK's result union (success,
// error_max_turns, error_during_execution); ply's own stays in ply_subtype.
func sdkSubtype(sub string) string {
	switch sub {
	case headless.SubtypeSuccess, headless.SubtypeMaxTurns, headless.SubtypeError:
		return sub
	}
	return headless.SubtypeError
}
