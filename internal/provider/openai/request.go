package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/wirecache"
)

// The wire shapes of a Chat Completions request. Only what ply sends is
// declared; the JSON field order follows the struct order, which keeps
// request bodies stable for tests and for prompt caching.
type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	Tools               []chatTool     `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a []contentPart, or nil (omitted) for an
	// assistant message that only calls tools.
	Content          any        `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"` // "text" or "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands in for a tool without parameters: several servers
// reject "parameters": null.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest converts a provider-neutral request to the wire request.
func (c *Client) buildRequest(req *llm.Request) (*chatRequest, error) {
	out, err := c.buildHead(req)
	if err != nil {
		return nil, err
	}
	for i := range req.Messages {
		msgs, err := c.convertMessage(&req.Messages[i])
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		out.Messages = append(out.Messages, msgs...)
	}
	return out, nil
}

// encode returns the body of req, in pieces: json.Marshal of buildRequest's
// wire request, byte for byte, with each history message's encoding reused
// from earlier requests when the message is unchanged, and the rest's when
// the system prompt, tools and settings are (package wirecache).
func (c *Client) encode(req *llm.Request) ([][]byte, error) {
	head, err := c.head.Encode(req, func() (encodedHead, error) { return c.encodeHead(req) })
	if err != nil {
		return nil, err
	}
	encs, err := c.msgs.Encode(req.Messages, func(i int, m *llm.Message) ([]byte, int, error) {
		msgs, err := c.convertMessage(m)
		if err != nil {
			return nil, 0, fmt.Errorf("openai: message %d: %w", i, err)
		}
		return wirecache.Bytes(wirecache.JoinJSON(msgs))
	})
	if err != nil {
		return nil, err
	}
	if len(head.system) == 0 && len(req.Messages) == 0 {
		// No messages: null, as encoding/json writes a nil slice.
		return [][]byte{head.request}, nil
	}
	pieces := make([][]byte, 0, len(encs)+1)
	body, err := wirecache.Splice(head.request, `,"messages":null`, `,"messages":[`, append(append(pieces, head.system), encs...)...)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return body, nil
}

// encodedHead is the encoding of what a request holds besides the
// history: the request with no messages, and the system message.
type encodedHead struct {
	request, system []byte
}

func (c *Client) encodeHead(req *llm.Request) (encodedHead, error) {
	head, err := c.buildHead(req)
	if err != nil {
		return encodedHead{}, err
	}
	system := head.Messages
	head.Messages = nil
	b, err := json.Marshal(head)
	if err != nil {
		return encodedHead{}, fmt.Errorf("openai: encoding request: %w", err)
	}
	sys, err := wirecache.JoinJSON(system)
	if err != nil {
		return encodedHead{}, fmt.Errorf("openai: encoding request: %w", err)
	}
	return encodedHead{request: b, system: sys}, nil
}

// buildHead is the wire request without the history's messages: the
// system message, the tools and the settings.
func (c *Client) buildHead(req *llm.Request) (*chatRequest, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return nil, fmt.Errorf("openai: no model given")
	}
	out := &chatRequest{
		Model:         model,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature:   req.Temperature,
		// Only reasoning models take it; it is sent only when asked for.
		ReasoningEffort: req.Effort.ReasoningEffort(),
	}
	if req.MaxOutputTokens > 0 {
		if c.cfg.MaxTokensField == "max_completion_tokens" {
			out.MaxCompletionTokens = req.MaxOutputTokens
		} else {
			out.MaxTokens = req.MaxOutputTokens
		}
	}
	if req.System != "" {
		out.Messages = append(out.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = emptySchema
		}
		out.Tools = append(out.Tools, chatTool{
			Type:     "function",
			Function: functionDef{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	return out, nil
}

// convertMessage turns one history entry into one or more wire messages.
func (c *Client) convertMessage(m *llm.Message) ([]chatMessage, error) {
	switch m.Role {
	case llm.RoleModel:
		return c.convertModel(m), nil
	case llm.RoleUser:
		return convertUser(m), nil
	}
	return nil, fmt.Errorf("unknown role %q", m.Role)
}

func (c *Client) convertModel(m *llm.Message) []chatMessage {
	var text, thought strings.Builder
	msg := chatMessage{Role: "assistant"}
	for _, p := range m.Parts {
		switch {
		case p.Call != nil:
			msg.ToolCalls = append(msg.ToolCalls, toolCall{
				ID:       p.Call.ID,
				Type:     "function",
				Function: functionCall{Name: p.Call.Name, Arguments: p.Call.Args},
			})
		case p.Thought:
			thought.WriteString(p.Text)
		case p.Text != "":
			text.WriteString(p.Text)
		}
	}
	if text.Len() > 0 {
		msg.Content = text.String()
	}
	if c.cfg.SendReasoning {
		msg.ReasoningContent = thought.String()
	}
	if msg.Content == nil && len(msg.ToolCalls) == 0 {
		// A model entry with only thoughts (or nothing): an empty
		// assistant message keeps the user/assistant alternation that
		// some chat templates insist on.
		msg.Content = ""
	}
	return []chatMessage{msg}
}

// convertUser splits a user entry: first one tool message per function
// response, in order (Chat Completions wants them right after the
// assistant message that made the calls), then a single user message with
// the images the tools returned and the entry's own text and media.
func convertUser(m *llm.Message) []chatMessage {
	var out []chatMessage
	var user []contentPart
	for _, p := range m.Parts {
		r := p.Response
		if r == nil {
			continue
		}
		content := r.Output
		if len(r.Media) > 0 {
			// A tool message can only carry text, so the media travel in
			// the user message that follows, labelled with the call.
			content += fmt.Sprintf("\n\n[%s returned %d attachment(s); they follow in the next message.]", r.Name, len(r.Media))
			user = append(user, contentPart{Type: "text", Text: fmt.Sprintf("Attachments returned by %s (call %s):", r.Name, r.ID)})
			for i := range r.Media {
				user = append(user, mediaPart(&r.Media[i]))
			}
		}
		out = append(out, chatMessage{Role: "tool", ToolCallID: r.ID, Content: content})
	}
	hasMedia := len(user) > 0
	for _, p := range m.Parts {
		switch {
		case p.Response != nil, p.Call != nil, p.Thought:
		case p.Media != nil:
			user = append(user, mediaPart(p.Media))
			hasMedia = true
		case p.Text != "":
			user = append(user, contentPart{Type: "text", Text: p.Text})
		}
	}
	if len(user) == 0 {
		if len(out) == 0 {
			// An empty user entry: keep it, as empty text, rather than
			// silently changing the shape of the history.
			out = append(out, chatMessage{Role: "user", Content: ""})
		}
		return out
	}
	if !hasMedia {
		// Text only: send a plain string, which every compatible server
		// accepts (some reject content arrays for text).
		var b strings.Builder
		for i, p := range user {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
		return append(out, chatMessage{Role: "user", Content: b.String()})
	}
	return append(out, chatMessage{Role: "user", Content: user})
}

// mediaPart renders inline data. Chat Completions takes images as data
// URLs; other types have no portable encoding, so the model is told what
// was left out instead of receiving nothing.
func mediaPart(m *llm.Media) contentPart {
	if strings.HasPrefix(m.MIMEType, "image/") {
		url := "data:" + m.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
		return contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}}
	}
	return contentPart{Type: "text", Text: fmt.Sprintf("[%d bytes of %s omitted: this provider accepts only images]", len(m.Data), m.MIMEType)}
}
