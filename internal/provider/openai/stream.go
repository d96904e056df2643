package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
	"github.com/plyhq/ply/internal/sse"
)

// The wire shapes of a streamed chunk. Fields are decoded leniently:
// compatible servers send null where OpenAI sends a value, and add fields
// of their own.
type streamChunk struct {
	Choices []choice        `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        message `json:"delta"`
	Message      message `json:"message"` // non-streamed answers only
	FinishReason string  `json:"finish_reason"`
}

type message struct {
	Content content `json:"content"`
	// reasoning_content is DashScope's, DeepSeek's and vLLM's name for
	// thoughts; reasoning is OpenRouter's and Ollama's. Some servers send
	// both with the same text, so reasoning_content wins when present.
	ReasoningContent textOrNull     `json:"reasoning_content"`
	Reasoning        textOrNull     `json:"reasoning"`
	Refusal          string         `json:"refusal"`
	ToolCalls        []toolCallWire `json:"tool_calls"`
}

type toolCallWire struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *wireUsage) convert() *llm.Usage {
	out := &llm.Usage{
		InputTokens:  u.PromptTokens,
		OutputTokens: u.CompletionTokens,
		TotalTokens:  u.TotalTokens,
	}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

// textOrNull is a string that tolerates null and non-string values (which
// it ignores) so that one server's odd shape cannot fail the whole chunk.
type textOrNull string

func (t *textOrNull) UnmarshalJSON(b []byte) error {
	if s, ok := jsonString(b); ok {
		*t = textOrNull(s)
	}
	return nil
}

// jsonString decodes a JSON string value, skipping a second full decode
// for the common case of a string without escapes (the outer decoder has
// already validated b).
func jsonString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b[1 : len(b)-1]), true
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// content is message content: a string (the usual case) or, from some
// servers (Mistral), an array of typed parts, of which text and thinking
// parts are kept.
type content struct {
	Text, Thought string
}

func (c *content) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || b[0] == 'n':
		return nil
	case b[0] == '"':
		c.Text, _ = jsonString(b)
		return nil
	case b[0] != '[':
		return nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			c.Text += p.Text
		case "thinking":
			var inner content
			if inner.UnmarshalJSON(p.Thinking) == nil {
				c.Thought += inner.Text
			}
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("openai: %w", &llm.InvalidStreamError{Reason: fmt.Sprintf(format, args...)})
}

// decoder holds the state of one response: calls being assembled and
// what has been seen so far.
type decoder struct {
	calls     []*pendingCall
	byIndex   map[int]*pendingCall
	sawChoice bool
	finished  bool
	usage     *llm.Usage
}

type pendingCall struct {
	id, name string
	args     strings.Builder
}

// decodeStream reads an SSE stream and yields its chunks. It returns nil
// when the stream ended well or the consumer stopped; any error it returns
// has not been yielded yet.
func decodeStream(body io.Reader, yield func(llm.Chunk, error) bool) error {
	d := &decoder{}
	for ev, err := range sse.NewReader(body).Events() {
		if err != nil {
			return fmt.Errorf("openai: reading stream: %w", err)
		}
		switch ev.Name {
		case "", "message", "error":
		default:
			continue // vendor events carry nothing for us
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			break
		}
		var sc streamChunk
		if err := json.Unmarshal(data, &sc); err != nil {
			if ev.Name == "error" {
				return &llm.APIError{Provider: provider, Message: transport.CapText(string(data))}
			}
			return invalid("data is not JSON (%v): %s", err, transport.CapText(string(data)))
		}
		if len(sc.Error) > 0 && string(sc.Error) != "null" {
			return streamError(sc.Error)
		}
		if !d.chunk(&sc, false, yield) {
			return nil
		}
	}
	return d.end(yield)
}

// decodeWhole handles a server that answered a streaming request with a
// single JSON completion.
func decodeWhole(body io.Reader, yield func(llm.Chunk, error) bool) error {
	b, err := io.ReadAll(io.LimitReader(body, sse.DefaultMaxEventSize+1))
	if err != nil {
		return fmt.Errorf("openai: reading response: %w", err)
	}
	if len(b) > sse.DefaultMaxEventSize {
		return invalid("response larger than %d bytes", sse.DefaultMaxEventSize)
	}
	var sc streamChunk
	if err := json.Unmarshal(b, &sc); err != nil {
		return invalid("response is not JSON (%v): %s", err, transport.CapText(string(b)))
	}
	if len(sc.Error) > 0 && string(sc.Error) != "null" {
		return streamError(sc.Error)
	}
	d := &decoder{}
	if !d.chunk(&sc, true, yield) {
		return nil
	}
	return d.end(yield)
}

// chunk applies one decoded chunk and yields what it carries. It reports
// false when the consumer stopped.
func (d *decoder) chunk(sc *streamChunk, whole bool, yield func(llm.Chunk, error) bool) bool {
	if sc.Usage != nil {
		// Kept for the end: a server reporting cumulative usage on every
		// chunk must not be counted more than once.
		d.usage = sc.Usage.convert()
	}
	for i := range sc.Choices {
		ch := &sc.Choices[i]
		if ch.Index != 0 {
			continue // ply asks for one choice
		}
		d.sawChoice = true
		m := &ch.Delta
		if whole {
			m = &ch.Message
		}
		var out llm.Chunk
		out.Text = m.Content.Text + m.Refusal
		out.Thought = string(m.ReasoningContent)
		if out.Thought == "" {
			out.Thought = string(m.Reasoning)
		}
		out.Thought += m.Content.Thought
		for j := range m.ToolCalls {
			d.addCall(&m.ToolCalls[j], whole)
		}
		if ch.FinishReason != "" && !d.finished {
			d.finished = true
			out.Calls = d.takeCalls()
			out.FinishReason = mapFinish(ch.FinishReason)
		}
		if !out.Empty() && !yield(out, nil) {
			return false
		}
	}
	return true
}

// end yields what is still held at the end of the stream and judges the
// stream as a whole.
func (d *decoder) end(yield func(llm.Chunk, error) bool) error {
	if calls := d.takeCalls(); len(calls) > 0 {
		if !yield(llm.Chunk{Calls: calls}, nil) {
			return nil
		}
	}
	if d.usage != nil {
		if !yield(llm.Chunk{Usage: d.usage}, nil) {
			return nil
		}
	}
	if !d.sawChoice {
		return invalid("no choices in response")
	}
	if !d.finished {
		return invalid("stream ended without a finish reason")
	}
	return nil
}

// addCall merges one tool-call fragment. OpenAI sends the id and name once,
// in the first fragment of each index, and the arguments in pieces.
// Compatible servers vary: some repeat the id (and name) on every
// fragment, some send no index at all, some number every call 0. The
// rules: a fragment joins the call of its index unless it brings a
// different id, which starts a new call; a fragment without index joins
// the call of its id, or the latest call when it has no id either.
func (d *decoder) addCall(w *toolCallWire, whole bool) {
	var pc *pendingCall
	switch {
	case whole:
		// A complete message lists complete calls.
	case w.Index != nil:
		pc = d.byIndex[*w.Index]
		if pc != nil && w.ID != "" && pc.id != "" && w.ID != pc.id {
			pc = nil
		}
	case w.ID != "":
		for _, c := range d.calls {
			if c.id == w.ID {
				pc = c
			}
		}
	case len(d.calls) > 0:
		pc = d.calls[len(d.calls)-1]
	}
	if pc == nil {
		pc = &pendingCall{}
		d.calls = append(d.calls, pc)
	}
	if w.Index != nil && !whole {
		if d.byIndex == nil {
			d.byIndex = make(map[int]*pendingCall)
		}
		d.byIndex[*w.Index] = pc
	}
	if pc.id == "" {
		pc.id = w.ID
	}
	if pc.name == "" {
		pc.name = w.Function.Name
	}
	pc.args.WriteString(w.Function.Arguments)
}

// takeCalls returns the assembled calls in order of first appearance and
// forgets them, so that each is reported once.
func (d *decoder) takeCalls() []llm.FunctionCall {
	var out []llm.FunctionCall
	for _, pc := range d.calls {
		if pc.id == "" && pc.name == "" && pc.args.Len() == 0 {
			continue // an empty fragment list, not a call
		}
		out = append(out, llm.FunctionCall{ID: pc.id, Name: pc.name, Args: pc.args.String()})
	}
	d.calls = nil
	clear(d.byIndex)
	return out
}

func mapFinish(s string) llm.FinishReason {
	switch s {
	case "stop", "end_turn", "eos":
		return llm.FinishStop
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "length", "max_tokens":
		return llm.FinishMaxTokens
	case "content_filter":
		return llm.FinishContentFilter
	}
	return llm.FinishOther
}
