package fakeprovider

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Turn is the scripted answer to one request: the steps, in order, that
// make up one streamed response.
type Turn []Step

// Step is one piece of a scripted response, made by the functions below.
type Step struct {
	kind   stepKind
	text   string // Text, Thought; id for ToolCall
	name   string // ToolCall
	args   string // ToolCall
	in     int    // Usage
	out    int    // Usage
	n      int    // CutAfterChunks; status code for Status
	header http.Header
	d      time.Duration
}

type stepKind int

const (
	kindText stepKind = iota + 1
	kindThought
	kindToolCall
	kindUsage
	kindFinish
	kindReset
	kindClose
	kindStallHeaders
	kindCut
	kindStatus
	kindNotJSON
	kindNoFinish
	kindStall
	kindWhen
)

// Text streams s as one content delta.
func Text(s string) Step { return Step{kind: kindText, text: s} }

// Thought streams s as one reasoning_content delta.
func Thought(s string) Step { return Step{kind: kindThought, text: s} }

// ToolCall streams a complete tool call the way OpenAI does: a first chunk
// with the index, id, type and name and empty arguments, then the
// arguments in fragments of a few bytes (never splitting a character).
// Calls of one turn get the indexes 0, 1, ... in order.
func ToolCall(id, name, argsJSON string) Step {
	return Step{kind: kindToolCall, text: id, name: name, args: argsJSON}
}

// Usage sends a usage chunk (with "choices": []) reporting in prompt and
// out completion tokens.
func Usage(in, out int) Step { return Step{kind: kindUsage, in: in, out: out} }

// Finish sends a chunk with this finish_reason ("stop", "tool_calls",
// "length", ...). A turn without Finish (and without NoFinishReason) gets
// one automatically, before its first Usage step or at its end: "tool_calls"
// when it made calls, "stop" otherwise.
func Finish(reason string) Step { return Step{kind: kindFinish, text: reason} }

// ResetBeforeFirstByte makes the server reset the connection before
// sending anything: no status line, no headers.
func ResetBeforeFirstByte() Step { return Step{kind: kindReset} }

// CloseBeforeFirstByte makes the server close the connection cleanly (a
// FIN, not a reset) before sending anything, the way a proxy or server
// drops a keep-alive connection it considers idle: the client reads EOF
// where it expected the status line.
func CloseBeforeFirstByte() Step { return Step{kind: kindClose} }

// CutAfterChunks makes the server drop the connection after n chunks of
// the turn have been sent, in the middle of the chunked body, so that the
// client sees an unexpected EOF. If the turn has fewer chunks, the cut
// comes after the last one, in place of [DONE].
func CutAfterChunks(n int) Step { return Step{kind: kindCut, n: n} }

// Status answers with this HTTP status, body and headers instead of a
// stream; the turn's other steps are ignored.
func Status(code int, body string, headers map[string]string) Step {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	return Step{kind: kindStatus, n: code, text: body, header: h}
}

// NotJSONChunk sends, at its place in the turn, a data line that is not
// JSON.
func NotJSONChunk() Step { return Step{kind: kindNotJSON} }

// NoFinishReason suppresses the automatic finish chunk, so the stream ends
// ([DONE] included) without any finish_reason.
func NoFinishReason() Step { return Step{kind: kindNoFinish} }

// When makes the turn answer only a request whose system prompt or
// messages contain substr; such a turn is skipped over (kept for later)
// when an earlier-served request does not match. It lets a script answer
// concurrent requests (parallel subagents) whatever order they arrive in.
func When(substr string) Step { return Step{kind: kindWhen, text: substr} }

// matches reports whether t may answer a request with these messages.
func (t Turn) matches(msgs *texts) bool {
	for _, s := range t {
		if s.kind != kindWhen {
			continue
		}
		found := false
		for i := range msgs.msgs {
			if strings.Contains(msgs.text(i), s.text) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// texts decodes the text of a request's messages once, however many
// turns look at it: a script of many turns with When conditions would
// otherwise decode the whole request again for each turn it tries.
type texts struct {
	msgs    []Message
	decoded []*string
}

func newTexts(msgs []Message) *texts {
	return &texts{msgs: msgs, decoded: make([]*string, len(msgs))}
}

func (t *texts) text(i int) string {
	if t.decoded[i] == nil {
		s := t.msgs[i].Text()
		t.decoded[i] = &s
	}
	return *t.decoded[i]
}

// Stall waits d at its place in the turn before sending what follows (or
// ending the stream), or until the client goes away.
func Stall(d time.Duration) Step { return Step{kind: kindStall, d: d} }

// StallBeforeHeaders waits d before sending anything at all, not even the
// status line and headers, or until the client goes away; the turn then
// goes on as scripted.
func StallBeforeHeaders(d time.Duration) Step { return Step{kind: kindStallHeaders, d: d} }

// fragmentSize is how many bytes of arguments go in one chunk: small, so
// that clients must assemble, and tests see real chunk boundaries.
const fragmentSize = 4

// plan is a turn rendered for sending.
type plan struct {
	status *Step
	reset  bool
	close  bool
	// silence is how long to wait before sending the headers.
	silence time.Duration
	cut     int // -1: no cut
	events  []event
}

// event is one SSE data payload to send, or a pause.
type event struct {
	data  string
	pause time.Duration
}

// Wire shapes, declared so that field order matches OpenAI's.
type wireChunk struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

type wireToolCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// render turns the steps into what the server sends. id and model fill
// the chunks' envelope.
func (t Turn) render(id, model string) plan {
	p := plan{cut: -1}
	hasFinish, noFinish, calls := false, false, 0
	for _, s := range t {
		switch s.kind {
		case kindStatus:
			p.status = &s
		case kindReset:
			p.reset = true
		case kindClose:
			p.close = true
		case kindStallHeaders:
			p.silence += s.d
		case kindCut:
			p.cut = s.n
		case kindFinish:
			hasFinish = true
		case kindNoFinish:
			noFinish = true
		case kindToolCall:
			calls++
		}
	}
	autoFinish := !hasFinish && !noFinish
	finishReason := "stop"
	if calls > 0 {
		finishReason = "tool_calls"
	}

	first := true
	chunk := func(d wireDelta, finish *string) {
		if first {
			d.Role = "assistant"
			first = false
		}
		p.add(wireChunk{Choices: []wireChoice{{Delta: d, FinishReason: finish}}}, id, model)
	}
	finish := func(reason string) { chunk(wireDelta{}, &reason) }

	index := 0
	for _, s := range t {
		switch s.kind {
		case kindText:
			text := s.text
			chunk(wireDelta{Content: &text}, nil)
		case kindThought:
			chunk(wireDelta{ReasoningContent: s.text}, nil)
		case kindToolCall:
			chunk(wireDelta{ToolCalls: []wireToolCall{{Index: index, ID: s.text, Type: "function", Function: wireFunction{Name: s.name}}}}, nil)
			for _, frag := range fragments(s.args, fragmentSize) {
				chunk(wireDelta{ToolCalls: []wireToolCall{{Index: index, Function: wireFunction{Arguments: frag}}}}, nil)
			}
			index++
		case kindFinish:
			finish(s.text)
		case kindUsage:
			if autoFinish {
				finish(finishReason)
				autoFinish = false
			}
			p.add(wireChunk{Choices: []wireChoice{}, Usage: &wireUsage{s.in, s.out, s.in + s.out}}, id, model)
		case kindNotJSON:
			p.events = append(p.events, event{data: `{"choices":[{"index":0,"delta":{"content":"oops` + " <- this chunk is not JSON"})
		case kindStall:
			p.events = append(p.events, event{pause: s.d})
		}
	}
	if autoFinish {
		finish(finishReason)
	}
	return p
}

func (p *plan) add(c wireChunk, id, model string) {
	c.ID, c.Object, c.Created, c.Model = id, "chat.completion.chunk", 1700000000, model
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // the shapes above always marshal
	}
	p.events = append(p.events, event{data: string(b)})
}

// fragments splits s into pieces of about n bytes on character boundaries:
// splitting inside a character would turn it into U+FFFD when the piece is
// encoded as a JSON string.
func fragments(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
