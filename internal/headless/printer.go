package headless

import (
	"fmt"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// printer turns the run into messages, in their stream-json shapes, and
// hands them to its sink, which prints them in the run's format.
type printer struct {
	cfg  Config
	sink Sink

	// A subagent's printer (see Nested) marks its messages with the
	// parent call and adds its usage to its parent's; no init message
	// announces it (its parent's tool_use does).
	parent   *printer
	parentID *string

	mu sync.Mutex
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
	return &printer{cfg: cfg, sink: newSink(cfg)}
}

func (p *printer) emit(v any) { p.sink.Message(v) }

func (p *printer) progress(format string, args ...any) {
	p.sink.Progress(fmt.Sprintf(format, args...))
}

func (p *printer) init() { p.emit(InitMessage(p.cfg)) }

// InitMessage is the first message of a run or session with cfg.
func InitMessage(cfg Config) SystemInit {
	tools := cfg.Tools
	if tools == nil {
		tools = []string{}
	}
	return SystemInit{
		Type: "system", Subtype: "init", UUID: cfg.SessionID, SessionID: cfg.SessionID,
		CWD: cfg.CWD, Tools: tools, MCPServers: nonNil(cfg.MCPServers), Model: cfg.Model,
		PermissionMode: cfg.PermissionMode, SlashCommands: nonNil(cfg.Skills), Version: cfg.Version,
		Agents: nonNil(cfg.Agents), Skills: nonNil(cfg.Skills),
	}
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
	}
	if len(calls) > 0 {
		bl := make([]Block, len(calls))
		for i, c := range calls {
			bl[i] = Block{Type: "tool_use", ID: c.CallID, Name: c.Name, Input: ToolInput(c.Args)}
		}
		msgs = append(msgs, bl)
	}
	// The messages of one reply share its id and its usage, as Claude
	// Code prints them (a consumer that sums usage counts an id once); the
	// last says why the reply stopped.
	msgID := newUUID()
	usage := UsageOf(f.Usage)
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

func (p *printer) result(res Result) { p.sink.Result(res) }
