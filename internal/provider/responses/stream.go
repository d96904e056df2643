package responses

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

// event is the union of the shapes of the events ply uses; which fields
// are set depends on Type. Other event types are never decoded past their
// type (see handled), and fields whose shape may vary are decoded
// leniently, so that an event or item ply does not use cannot fail the
// stream.
type event struct {
	Type         string      `json:"type"`
	ItemID       string      `json:"item_id"`
	OutputIndex  int         `json:"output_index"`
	SummaryIndex int         `json:"summary_index"`
	Delta        text        `json:"delta"`
	Arguments    text        `json:"arguments"`
	Item         *outputItem `json:"item"`
	Response     *response   `json:"response"`
	// An error event carries code and message at the top level; some
	// servers nest them in "error" instead.
	Code    json.RawMessage `json:"code"`
	Message text            `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// handled are the event types decoded in full.
var handled = map[string]bool{
	"response.output_text.delta":             true,
	"response.refusal.delta":                 true,
	"response.reasoning_summary_text.delta":  true,
	"response.reasoning_text.delta":          true,
	"response.output_item.added":             true,
	"response.function_call_arguments.delta": true,
	"response.function_call_arguments.done":  true,
	"response.output_item.done":              true,
	"response.completed":                     true,
	"response.incomplete":                    true,
	"response.failed":                        true,
	"error":                                  true,
}

type outputItem struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        text   `json:"arguments"`
	EncryptedContent text   `json:"encrypted_content"`
	Summary          []struct {
		Text text `json:"text"`
	} `json:"summary"`
	// Content is decoded only for message items; other item types use
	// the name for other shapes.
	Content json.RawMessage `json:"content"`
}

// messageText returns the text of a message item's output_text parts.
func (it *outputItem) messageText() string {
	var parts []struct {
		Type string `json:"type"`
		Text text   `json:"text"`
	}
	if json.Unmarshal(it.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "output_text" || p.Type == "refusal" || p.Type == "" {
			b.WriteString(string(p.Text))
		}
	}
	return b.String()
}

type response struct {
	Status            string          `json:"status"`
	Usage             *wireUsage      `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type wireUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u *wireUsage) convert() *llm.Usage {
	out := &llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	if u.InputTokensDetails != nil {
		out.CachedTokens = u.InputTokensDetails.CachedTokens
	}
	if u.OutputTokensDetails != nil {
		out.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

// text is a string that tolerates null and non-string values (which it
// ignores).
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		*t = text(s)
	}
	return nil
}

// parseErrorValue reads an "error" value: an object, a plain string, or
// null (nil).
func parseErrorValue(raw json.RawMessage) *errorObject {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var eo errorObject
	if json.Unmarshal(raw, &eo) == nil {
		return &eo
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &errorObject{Message: s}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("responses: %w", &llm.InvalidStreamError{Reason: fmt.Sprintf(format, args...)})
}

// decoder holds the state of one response.
type decoder struct {
	calls     map[string]*pendingCall // function_call items by item id
	order     []*pendingCall          // in order of appearance
	sawCalls  bool
	finish    llm.FinishReason
	usage     *llm.Usage
	streamed  map[string]bool // items whose text or reasoning came as deltas
	lastThink string          // item and summary part of the last thought delta
}

type pendingCall struct {
	callID, name string
	args         strings.Builder
	final        string // the arguments of ...arguments.done, authoritative
	done         bool
}

func (pc *pendingCall) call() llm.FunctionCall {
	args := pc.final
	if args == "" {
		args = pc.args.String()
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return llm.FunctionCall{ID: pc.callID, Name: pc.name, Args: args}
}

// decodeStream reads an SSE stream and yields its chunks. It returns nil
// when the stream ended well or the consumer stopped; any error it returns
// has not been yielded yet.
func decodeStream(body io.Reader, yield func(llm.Chunk, error) bool) error {
	d := &decoder{calls: map[string]*pendingCall{}, streamed: map[string]bool{}}
	for ev, err := range sse.NewReader(body).Events() {
		if err != nil {
			return fmt.Errorf("responses: reading stream: %w", err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			if ev.Name == "error" {
				return streamError(nil, data)
			}
			return invalid("data is not JSON (%v): %s", err, transport.CapText(string(data)))
		}
		if head.Type == "" {
			head.Type = ev.Name
		}
		if !handled[head.Type] {
			continue // response.created, .in_progress, part events, and anything newer
		}
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return invalid("%s event is malformed (%v): %s", head.Type, err, transport.CapText(string(data)))
		}
		e.Type = head.Type
		ok, err := d.event(&e, data, yield)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if d.finish != "" {
			break // response.completed or .incomplete ends the response
		}
	}
	return d.end(yield)
}

// event applies one event and yields what it carries. It reports false
// when the consumer stopped, and an error for a failure event.
func (d *decoder) event(e *event, raw []byte, yield func(llm.Chunk, error) bool) (bool, error) {
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		d.streamed[e.ItemID] = true
		return e.Delta == "" || yield(llm.Chunk{Text: string(e.Delta)}, nil), nil
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return d.thought(e.ItemID, e.SummaryIndex, string(e.Delta), yield), nil
	case "response.output_item.added":
		if it := e.Item; it != nil && it.Type == "function_call" {
			pc := d.callFor(it.ID)
			pc.callID, pc.name = it.CallID, it.Name
			pc.args.WriteString(string(it.Arguments))
		}
	case "response.function_call_arguments.delta":
		d.callFor(e.ItemID).args.WriteString(string(e.Delta))
	case "response.function_call_arguments.done":
		d.callFor(e.ItemID).final = string(e.Arguments)
	case "response.output_item.done":
		if e.Item != nil {
			return d.itemDone(e.Item, yield), nil
		}
	case "response.completed", "response.incomplete":
		return d.complete(e.Type, e.Response, yield), nil
	case "response.failed":
		var eo *errorObject
		if e.Response != nil {
			eo = parseErrorValue(e.Response.Error)
		}
		return false, streamError(eo, raw)
	case "error":
		eo := parseErrorValue(e.Error)
		if eo == nil {
			eo = &errorObject{Message: string(e.Message), Code: e.Code}
		}
		return false, streamError(eo, raw)
	}
	return true, nil
}

// thought yields a reasoning delta. Parts of a summary, and separate
// reasoning items without encrypted content (which the chat layer would
// record as one thought), are kept apart by a blank line.
func (d *decoder) thought(itemID string, summary int, delta string, yield func(llm.Chunk, error) bool) bool {
	if delta == "" {
		return true
	}
	d.streamed[itemID] = true
	key := fmt.Sprintf("%s/%d", itemID, summary)
	if d.lastThink != "" && d.lastThink != key {
		delta = "\n\n" + delta
	}
	d.lastThink = key
	return yield(llm.Chunk{Thought: delta}, nil)
}

// callFor returns the call of a function_call item, creating it for
// servers that send arguments without announcing the item first.
func (d *decoder) callFor(itemID string) *pendingCall {
	pc := d.calls[itemID]
	if pc == nil {
		pc = &pendingCall{}
		d.calls[itemID] = pc
		d.order = append(d.order, pc)
	}
	return pc
}

// itemDone yields what a finished output item completes: a function call,
// the encrypted reasoning, or text that was not streamed as deltas.
func (d *decoder) itemDone(it *outputItem, yield func(llm.Chunk, error) bool) bool {
	switch it.Type {
	case "function_call":
		pc := d.callFor(it.ID)
		if it.CallID != "" {
			pc.callID = it.CallID
		}
		if it.Name != "" {
			pc.name = it.Name
		}
		if it.Arguments != "" {
			pc.final = string(it.Arguments)
		}
		if pc.done {
			return true
		}
		pc.done = true
		d.sawCalls = true
		return yield(llm.Chunk{Calls: []llm.FunctionCall{pc.call()}}, nil)
	case "reasoning":
		var out llm.Chunk
		if !d.streamed[it.ID] {
			for i, s := range it.Summary {
				if s.Text != "" && !d.thought(it.ID, i, string(s.Text), yield) {
					return false
				}
			}
		}
		out.ThoughtSignature = string(it.EncryptedContent)
		if out.ThoughtSignature != "" {
			// The signature closes the chat layer's thought part; the
			// next reasoning starts a part of its own.
			d.lastThink = ""
		}
		return out.Empty() || yield(out, nil)
	case "message":
		if d.streamed[it.ID] {
			return true
		}
		t := it.messageText()
		return t == "" || yield(llm.Chunk{Text: t}, nil)
	}
	return true
}

// complete handles the end of the response. Calls whose items never
// finished (a response cut by max_output_tokens) go out with the finish
// reason, which tells the layers above that they may be incomplete.
func (d *decoder) complete(typ string, r *response, yield func(llm.Chunk, error) bool) bool {
	var out llm.Chunk
	for _, pc := range d.order {
		if !pc.done && (pc.callID != "" || pc.name != "") {
			pc.done = true
			d.sawCalls = true
			out.Calls = append(out.Calls, pc.call())
		}
	}
	switch {
	case typ == "response.completed" && d.sawCalls:
		out.FinishReason = llm.FinishToolCalls
	case typ == "response.completed":
		out.FinishReason = llm.FinishStop
	case r != nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "max_output_tokens":
		out.FinishReason = llm.FinishMaxTokens
	case r != nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter":
		out.FinishReason = llm.FinishContentFilter
	default:
		out.FinishReason = llm.FinishOther
	}
	d.finish = out.FinishReason
	if r != nil && r.Usage != nil {
		d.usage = r.Usage.convert()
	}
	return yield(out, nil)
}

// end yields the usage and judges the stream as a whole. Calls never
// finished when the stream ends without a completion are not reported:
// their arguments were cut, and the stream is invalid anyway.
func (d *decoder) end(yield func(llm.Chunk, error) bool) error {
	if d.usage != nil {
		if !yield(llm.Chunk{Usage: d.usage}, nil) {
			return nil
		}
	}
	if d.finish == "" {
		return invalid("stream ended without response.completed")
	}
	return nil
}
