package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/llm"
)

// The wire shapes of a Messages request. Only what ply sends is declared;
// the JSON field order follows the struct order, which keeps request
// bodies byte-stable from one turn to the next, as prompt caching needs.
type messagesRequest struct {
	Model       string        `json:"model"`
	MaxTokens   int           `json:"max_tokens"`
	System      []*textBlock  `json:"system,omitempty"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools,omitempty"`
	Thinking    *thinking     `json:"thinking,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	Stream      bool          `json:"stream"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type wireMessage struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// block is one content block. Each kind has its own type because the
// API wants some fields present even when empty (a thinking block's
// "thinking"), which one struct with omitempty cannot express.
type block interface {
	// setCache marks the block as a prompt-cache breakpoint. It reports
	// false for kinds that cannot carry one (thinking blocks).
	setCache() bool
}

type textBlock struct {
	Type         string        `json:"type"` // "text"
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"` // "thinking"
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"` // "redacted_thinking"
	Data string `json:"data"`
}

type toolUseBlock struct {
	Type         string          `json:"type"` // "tool_use"
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolResultBlock struct {
	Type         string        `json:"type"` // "tool_result"
	ToolUseID    string        `json:"tool_use_id"`
	Content      []block       `json:"content,omitempty"`
	IsError      bool          `json:"is_error,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// mediaBlock is an image or a document with inline base64 data.
type mediaBlock struct {
	Type         string        `json:"type"` // "image" or "document"
	Source       mediaSource   `json:"source"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type mediaSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

func (b *textBlock) setCache() bool             { b.CacheControl = ephemeral; return true }
func (b *toolUseBlock) setCache() bool          { b.CacheControl = ephemeral; return true }
func (b *toolResultBlock) setCache() bool       { b.CacheControl = ephemeral; return true }
func (b *mediaBlock) setCache() bool            { b.CacheControl = ephemeral; return true }
func (b *thinkingBlock) setCache() bool         { return false }
func (b *redactedThinkingBlock) setCache() bool { return false }

// redactedPrefix marks a Signature that holds a redacted_thinking block's
// data rather than a thinking block's signature. Signatures are base64,
// which has no ':', so the two cannot be confused.
const redactedPrefix = "redacted_thinking:"

// emptySchema stands in for a tool without parameters: input_schema is
// required and must be an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// cachedUserTurns is how many of the last user turns get a cache
// breakpoint. With the system prompt's that makes three, under the API's
// limit of four; two let the next request hit the cache written by this
// one even when the last turn changes (a retry, a continuation).
const cachedUserTurns = 2

// buildRequest converts a provider-neutral request to the wire request.
func (c *Client) buildRequest(req *llm.Request) (*messagesRequest, error) {
	out, err := c.buildHead(req)
	if err != nil {
		return nil, err
	}
	msgs, err := convertMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	out.Messages = msgs
	return out, nil
}

// buildHead is the wire request without the history's messages.
func (c *Client) buildHead(req *llm.Request) (*messagesRequest, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return nil, fmt.Errorf("anthropic: no model given")
	}
	out := &messagesRequest{
		Model:       model,
		MaxTokens:   req.MaxOutputTokens,
		Temperature: req.Temperature,
		Stream:      true,
	}
	if out.MaxTokens <= 0 {
		out.MaxTokens = DefaultMaxTokens
	}
	if b := thinkingBudget(req, c.cfg.ThinkingBudget); b > 0 {
		out.Thinking = &thinking{Type: "enabled", BudgetTokens: b}
		out.Temperature = nil
		if out.MaxTokens <= b {
			// budget_tokens must be below max_tokens; keep room for the
			// visible reply on top of the thinking.
			out.MaxTokens = b + DefaultMaxTokens
		}
	}
	if req.System != "" {
		out.System = []*textBlock{{Type: "text", Text: req.System, CacheControl: ephemeral}}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
			schema = emptySchema
		}
		out.Tools = append(out.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out, nil
}

// convertMessages turns the history into strictly alternating user and
// assistant messages: entries that convert to nothing are dropped, and
// consecutive entries of one role are merged, since the API rejects both
// empty messages and two messages of a role in a row.
func convertMessages(history []llm.Message) ([]wireMessage, error) {
	entries := make([]entryBlocks, len(history))
	for i := range history {
		e, err := convertEntry(i, &history[i])
		if err != nil {
			return nil, err
		}
		entries[i] = e
	}
	turns := arrange(entries)
	out := make([]wireMessage, len(turns))
	for i, t := range turns {
		var content []block
		for _, e := range t.results {
			content = append(content, e.results...)
		}
		for _, e := range t.rest {
			content = append(content, e.rest...)
		}
		out[i] = wireMessage{Role: t.role, Content: content}
	}
	markCache(out)
	return out, nil
}

// entryBlocks is one history entry's blocks: its tool results apart from
// the rest, because the API wants every tool_result first in its message,
// even when several history entries are merged.
type entryBlocks struct {
	role          string
	results, rest []block
}

// convertEntry converts history entry i.
func convertEntry(i int, m *llm.Message) (entryBlocks, error) {
	var e entryBlocks
	switch m.Role {
	case llm.RoleUser:
		e.role = "user"
		e.results, e.rest = userBlocks(m)
	case llm.RoleModel:
		e.role = "assistant"
		e.rest = modelBlocks(m)
	default:
		return e, fmt.Errorf("anthropic: message %d: unknown role %q", i, m.Role)
	}
	return e, nil
}

// turn is a wire message being assembled from the entries it merges.
type turn[E any] struct {
	role string
	// results and rest are the entries whose results, and whose other
	// blocks, the message holds, in order.
	results, rest []E
}

// arrange merges consecutive entries of one role into turns and drops
// entries without blocks; blocks reads an entry's role and its numbers of
// results and other blocks.
func arrange[E interface{ counts() (string, int, int) }](entries []E) []*turn[E] {
	var turns []*turn[E]
	for _, e := range entries {
		role, results, rest := e.counts()
		if results+rest == 0 {
			continue
		}
		var t *turn[E]
		if n := len(turns); n > 0 && turns[n-1].role == role {
			t = turns[n-1]
		} else {
			t = &turn[E]{role: role}
			turns = append(turns, t)
		}
		if results > 0 {
			t.results = append(t.results, e)
		}
		if rest > 0 {
			t.rest = append(t.rest, e)
		}
	}
	return turns
}

func (e entryBlocks) counts() (string, int, int) { return e.role, len(e.results), len(e.rest) }

// markCache puts a cache breakpoint on the last block of the last
// cachedUserTurns user messages.
func markCache(msgs []wireMessage) {
	n := 0
	for i := len(msgs) - 1; i >= 0 && n < cachedUserTurns; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		c := msgs[i].Content
		for j := len(c) - 1; j >= 0; j-- {
			if c[j].setCache() {
				n++
				break
			}
		}
	}
}

func modelBlocks(m *llm.Message) []block {
	var rest []block
	for _, p := range m.Parts {
		switch {
		case p.Call != nil:
			rest = append(rest, &toolUseBlock{
				Type: "tool_use", ID: toolID(p.Call.ID), Name: p.Call.Name, Input: toolInput(p.Call.Args),
			})
		case p.Thought:
			// A thought is only worth sending with its signature: the API
			// rejects unsigned thinking blocks, and the model cannot use
			// thinking it cannot verify.
			switch {
			case strings.HasPrefix(p.Signature, redactedPrefix):
				rest = append(rest, &redactedThinkingBlock{Type: "redacted_thinking", Data: p.Signature[len(redactedPrefix):]})
			case p.Signature != "":
				rest = append(rest, &thinkingBlock{Type: "thinking", Thinking: p.Text, Signature: p.Signature})
			}
		case p.Text != "":
			// Empty text blocks are rejected; assistant media has no
			// wire form and is dropped.
			rest = append(rest, &textBlock{Type: "text", Text: p.Text})
		}
	}
	return rest
}

func userBlocks(m *llm.Message) (results, rest []block) {
	for _, p := range m.Parts {
		switch {
		case p.Response != nil:
			r := p.Response
			tr := &toolResultBlock{Type: "tool_result", ToolUseID: toolID(r.ID), IsError: r.IsError}
			if r.Output != "" {
				tr.Content = append(tr.Content, &textBlock{Type: "text", Text: r.Output})
			}
			for i := range r.Media {
				tr.Content = append(tr.Content, mediaContent(&r.Media[i]))
			}
			results = append(results, tr)
		case p.Call != nil, p.Thought:
		case p.Media != nil:
			rest = append(rest, mediaContent(p.Media))
		case p.Text != "":
			rest = append(rest, &textBlock{Type: "text", Text: p.Text})
		}
	}
	return results, rest
}

// toolInput turns the model's raw argument text back into the JSON object
// the API wants. Arguments that are not an object (cut short, or never
// valid) become {}: the call already failed validation when it ran, and
// its tool_result says so; refusing the whole request would wedge the
// conversation instead.
func toolInput(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return json.RawMessage("{}")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return json.RawMessage("{}")
	}
	return buf.Bytes()
}

// toolID makes an id acceptable to the API, which allows only
// [A-Za-z0-9_-]. Ids from other providers may hold other characters
// ("functions.read:0"); the mapping is deterministic, so a tool_use and
// its tool_result still pair up.
func toolID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		ok = isIDByte(id[i])
	}
	if ok {
		return id
	}
	if id == "" {
		return "call"
	}
	b := []byte(id)
	for i := range b {
		if !isIDByte(b[i]) {
			b[i] = '_'
		}
	}
	return string(b)
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// mediaContent renders inline data as an image or a PDF document block,
// the two kinds the API takes inline. Anything else is replaced by a note
// so that the model knows something was left out.
func mediaContent(m *llm.Media) block {
	data := base64.StdEncoding.EncodeToString(m.Data)
	switch m.MIMEType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return &mediaBlock{Type: "image", Source: mediaSource{Type: "base64", MediaType: m.MIMEType, Data: data}}
	case "application/pdf":
		return &mediaBlock{Type: "document", Source: mediaSource{Type: "base64", MediaType: m.MIMEType, Data: data}}
	}
	return &textBlock{Type: "text", Text: fmt.Sprintf("[%d bytes of %s omitted: this provider accepts only JPEG, PNG, GIF and WebP images and PDF documents]", len(m.Data), m.MIMEType)}
}

// thinkingBudget is the thinking budget of req: its effort's when it has
// one (fitting under the reply's cap when the request sets one; the
// caller raises max_tokens above it otherwise), else the configured one.
func thinkingBudget(req *llm.Request, configured int) int {
	if req.Effort == "" {
		return configured
	}
	return req.Effort.ThinkingBudget(req.MaxOutputTokens)
}
