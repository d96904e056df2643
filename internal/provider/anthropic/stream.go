package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
	"github.com/plyhq/ply/internal/sse"
)

// event is the union of the stream's event shapes; which fields are set
// depends on Type. Unknown types and fields are ignored, so that a new
// kind of block or delta cannot fail a stream that ply does not need it
// from.
type event struct {
	Type         string        `json:"type"`
	Index        int           `json:"index"`
	Message      *startMessage `json:"message"`
	ContentBlock *contentBlock `json:"content_block"`
	Delta        *delta        `json:"delta"`
	Usage        *wireUsage    `json:"usage"`
}

type startMessage struct {
	Usage *wireUsage `json:"usage"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// delta is a content_block_delta's delta or a message_delta's delta.
type delta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// wireUsage fields are pointers because message_delta repeats only some
// of them (output_tokens always; the input counts only on newer API
// versions), and an absent field must not reset what message_start said.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

func (u *wireUsage) merge(o *wireUsage) {
	set := func(dst **int, src *int) {
		if src != nil {
			*dst = src
		}
	}
	set(&u.InputTokens, o.InputTokens)
	set(&u.OutputTokens, o.OutputTokens)
	set(&u.CacheCreationInputTokens, o.CacheCreationInputTokens)
	set(&u.CacheReadInputTokens, o.CacheReadInputTokens)
}

// convert normalises to ply's accounting, where InputTokens is the whole
// prompt: Anthropic's input_tokens leaves out what was written to and read
// from the cache.
func (u *wireUsage) convert() *llm.Usage {
	v := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	out := &llm.Usage{
		InputTokens:  v(u.InputTokens) + v(u.CacheCreationInputTokens) + v(u.CacheReadInputTokens),
		OutputTokens: v(u.OutputTokens),
		CachedTokens: v(u.CacheReadInputTokens),
	}
	out.TotalTokens = out.InputTokens + out.OutputTokens
	return out
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("anthropic: %w", &llm.InvalidStreamError{Reason: fmt.Sprintf(format, args...)})
}

// decoder holds the state of one response.
type decoder struct {
	started  bool // message_start seen
	finish   llm.FinishReason
	usage    *wireUsage
	toolUses map[int]*toolUse // open tool_use blocks by index
}

type toolUse struct {
	id, name string
	start    json.RawMessage // the input in content_block_start
	args     strings.Builder
}

// call returns the completed call. The arguments are the concatenated
// input_json_delta fragments (the first is often ""); a block without any
// takes the input it started with, and a tool without parameters gets
// "{}", so Args is never empty.
func (tu *toolUse) call() llm.FunctionCall {
	args := tu.args.String()
	if strings.TrimSpace(args) == "" {
		args = "{}"
		if s := bytes.TrimSpace(tu.start); len(s) > 2 && s[0] == '{' {
			args = string(s)
		}
	}
	return llm.FunctionCall{ID: tu.id, Name: tu.name, Args: args}
}

// decodeStream reads an SSE stream and yields its chunks. It returns nil
// when the stream ended well or the consumer stopped; any error it returns
// has not been yielded yet.
func decodeStream(body io.Reader, yield func(llm.Chunk, error) bool) error {
	d := &decoder{}
	for ev, err := range sse.NewReader(body).Events() {
		if err != nil {
			return fmt.Errorf("anthropic: reading stream: %w", err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			if ev.Name == "error" {
				return eventError(data)
			}
			return invalid("%s data is not JSON (%v): %s", eventName(ev.Name), err, transport.CapText(string(data)))
		}
		if e.Type == "" {
			e.Type = ev.Name
		}
		if e.Type == "error" {
			return eventError(data)
		}
		if e.Type == "message_stop" {
			break
		}
		if !d.event(&e, yield) {
			return nil
		}
	}
	return d.end(yield)
}

func eventName(s string) string {
	if s == "" {
		return "event"
	}
	return s
}

// event applies one decoded event and yields what it carries. It reports
// false when the consumer stopped.
func (d *decoder) event(e *event, yield func(llm.Chunk, error) bool) bool {
	switch e.Type {
	case "message_start":
		d.started = true
		if e.Message != nil && e.Message.Usage != nil {
			d.addUsage(e.Message.Usage)
		}
	case "content_block_start":
		if e.ContentBlock != nil {
			return d.blockStart(e.Index, e.ContentBlock, yield)
		}
	case "content_block_delta":
		if e.Delta != nil {
			return d.blockDelta(e.Index, e.Delta, yield)
		}
	case "content_block_stop":
		if tu := d.toolUses[e.Index]; tu != nil {
			delete(d.toolUses, e.Index)
			return yield(llm.Chunk{Calls: []llm.FunctionCall{tu.call()}}, nil)
		}
	case "message_delta":
		if e.Usage != nil {
			d.addUsage(e.Usage)
		}
		if e.Delta != nil && e.Delta.StopReason != "" && d.finish == "" {
			d.finish = mapStopReason(e.Delta.StopReason)
			// Blocks still open here were cut by the token limit; their
			// calls go out with the finish reason, which tells the
			// layers above that the arguments may be incomplete.
			return yield(llm.Chunk{Calls: d.takeOpenCalls(), FinishReason: d.finish}, nil)
		}
	}
	// ping, and event types this client does not know, carry nothing.
	return true
}

func (d *decoder) addUsage(u *wireUsage) {
	if d.usage == nil {
		d.usage = &wireUsage{}
	}
	d.usage.merge(u)
}

func (d *decoder) blockStart(index int, b *contentBlock, yield func(llm.Chunk, error) bool) bool {
	var out llm.Chunk
	switch b.Type {
	case "text":
		out.Text = b.Text
	case "thinking":
		out.Thought, out.ThoughtSignature = b.Thinking, b.Signature
	case "redacted_thinking":
		// Encrypted thinking: nothing to show, but it must go back
		// verbatim with the rest of the turn.
		if b.Data != "" {
			out.ThoughtSignature = redactedPrefix + b.Data
		}
	case "tool_use":
		if d.toolUses == nil {
			d.toolUses = make(map[int]*toolUse)
		}
		d.toolUses[index] = &toolUse{id: b.ID, name: b.Name, start: slices.Clone(b.Input)}
	}
	return out.Empty() || yield(out, nil)
}

func (d *decoder) blockDelta(index int, dl *delta, yield func(llm.Chunk, error) bool) bool {
	var out llm.Chunk
	switch dl.Type {
	case "text_delta":
		out.Text = dl.Text
	case "thinking_delta":
		out.Thought = dl.Thinking
	case "signature_delta":
		out.ThoughtSignature = dl.Signature
	case "input_json_delta":
		if tu := d.toolUses[index]; tu != nil {
			tu.args.WriteString(dl.PartialJSON)
		}
	}
	return out.Empty() || yield(out, nil)
}

// takeOpenCalls returns the calls of blocks not yet stopped, in block
// order, and forgets them.
func (d *decoder) takeOpenCalls() []llm.FunctionCall {
	var out []llm.FunctionCall
	for _, i := range slices.Sorted(maps.Keys(d.toolUses)) {
		out = append(out, d.toolUses[i].call())
	}
	clear(d.toolUses)
	return out
}

// end yields the usage and judges the stream as a whole. A tool_use block
// still open when the stream ends without a stop reason is not reported:
// its arguments were cut short, and the stream is invalid anyway.
func (d *decoder) end(yield func(llm.Chunk, error) bool) error {
	if d.usage != nil {
		if !yield(llm.Chunk{Usage: d.usage.convert()}, nil) {
			return nil
		}
	}
	if !d.started {
		return invalid("no message_start in response")
	}
	if d.finish == "" {
		return invalid("stream ended without a stop reason")
	}
	return nil
}

func mapStopReason(s string) llm.FinishReason {
	switch s {
	case "end_turn", "stop_sequence":
		return llm.FinishStop
	case "tool_use":
		return llm.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishMaxTokens
	case "refusal":
		return llm.FinishContentFilter
	}
	// pause_turn (a server tool paused the turn) and anything newer.
	return llm.FinishOther
}
