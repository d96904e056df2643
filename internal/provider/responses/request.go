package responses

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/wirecache"
)

// The wire shapes of a Responses request. Only what ply sends is declared;
// the JSON field order follows the struct order, which keeps request
// bodies stable from one turn to the next, as prompt caching needs.
type responsesRequest struct {
	Model           string     `json:"model"`
	Instructions    string     `json:"instructions,omitempty"`
	Input           []any      `json:"input"`
	Tools           []wireTool `json:"tools,omitempty"`
	Stream          bool       `json:"stream"`
	Store           bool       `json:"store"`
	MaxOutputTokens int        `json:"max_output_tokens,omitempty"`
	Temperature     *float64   `json:"temperature,omitempty"`
	Reasoning       *reasoning `json:"reasoning,omitempty"`
	Include         []string   `json:"include,omitempty"`
}

type reasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type wireTool struct {
	Type        string          `json:"type"` // "function"
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is sent as false on purpose: the API defaults it to true for
	// function tools, which rejects any schema that is not written for
	// structured outputs (every property required, additionalProperties
	// false), and ply's tools and MCP tools are not.
	Strict bool `json:"strict"`
}

// Input items. No item ids are sent: with store false the server knows
// none, and it rejects ids it cannot find.
type messageItem struct {
	Type    string        `json:"type"` // "message"
	Role    string        `json:"role"` // "user" or "assistant"
	Content []contentPart `json:"content"`
}

type contentPart struct {
	Type     string `json:"type"` // input_text, output_text, input_image, input_file
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data,omitempty"`
}

type functionCallItem struct {
	Type      string `json:"type"` // "function_call"
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutputItem struct {
	Type   string `json:"type"` // "function_call_output"
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type reasoningItem struct {
	Type             string        `json:"type"` // "reasoning"
	Summary          []summaryPart `json:"summary"`
	EncryptedContent string        `json:"encrypted_content"`
}

type summaryPart struct {
	Type string `json:"type"` // "summary_text"
	Text string `json:"text"`
}

// emptySchema stands in for a tool without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest converts a provider-neutral request to the wire request.
func (c *Client) buildRequest(req *llm.Request) (*responsesRequest, error) {
	out, err := c.buildHead(req)
	if err != nil {
		return nil, err
	}
	for i := range req.Messages {
		items, err := convertMessage(i, &req.Messages[i])
		if err != nil {
			return nil, err
		}
		out.Input = append(out.Input, items...)
	}
	return out, nil
}

// convertMessage converts history entry i.
func convertMessage(i int, m *llm.Message) ([]any, error) {
	switch m.Role {
	case llm.RoleModel:
		return modelItems(m), nil
	case llm.RoleUser:
		return userItems(m), nil
	}
	return nil, fmt.Errorf("responses: message %d: unknown role %q", i, m.Role)
}

// encode returns the body of req, in pieces,: json.Marshal of buildRequest's wire
// request, byte for byte, with each history entry's items reused from
// earlier requests when the entry is unchanged (package wirecache).
func (c *Client) encode(req *llm.Request) ([][]byte, error) {
	b, err := c.head.Encode(req, func() ([]byte, error) { return wirecache.MarshalHead("responses", c.buildHead, req) })
	if err != nil {
		return nil, err
	}
	encs, err := c.msgs.Encode(req.Messages, func(i int, m *llm.Message) ([]byte, int, error) {
		items, err := convertMessage(i, m)
		if err != nil {
			return nil, 0, err
		}
		return wirecache.Bytes(wirecache.JoinJSON(items))
	})
	if err != nil {
		return nil, err
	}
	body, err := wirecache.Splice(b, `,"input":[]`, `,"input":[`, encs...)
	if err != nil {
		return nil, fmt.Errorf("responses: %w", err)
	}
	return body, nil
}

// buildHead is the wire request with an empty input: the instructions,
// the tools and the settings.
func (c *Client) buildHead(req *llm.Request) (*responsesRequest, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return nil, fmt.Errorf("responses: no model given")
	}
	out := &responsesRequest{
		Model:           model,
		Instructions:    req.System,
		Input:           []any{},
		Stream:          true,
		Store:           false,
		MaxOutputTokens: req.MaxOutputTokens,
		Temperature:     req.Temperature,
	}
	r := c.cfg.Reasoning
	if req.Effort != "" {
		// The request's tier wins over the configured one; asking for
		// one says the model reasons.
		r = &Reasoning{Effort: req.Effort.ReasoningEffort()}
		if c.cfg.Reasoning != nil {
			r.Summary = c.cfg.Reasoning.Summary
		}
	}
	if r != nil {
		out.Reasoning = &reasoning{Effort: r.Effort, Summary: r.Summary}
		// With store false the reasoning is lost between turns unless
		// the server hands it over, encrypted, for us to send back.
		out.Include = []string{"reasoning.encrypted_content"}
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 || string(params) == "null" {
			params = emptySchema
		}
		out.Tools = append(out.Tools, wireTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	return out, nil
}

// modelItems converts a model entry, keeping its order: reasoning,
// text and calls interleave in the Responses API, and the encrypted
// reasoning must stay in front of the calls it led to.
func modelItems(m *llm.Message) []any {
	var out []any
	var text []contentPart
	flush := func() {
		if len(text) > 0 {
			out = append(out, messageItem{Type: "message", Role: "assistant", Content: text})
			text = nil
		}
	}
	for _, p := range m.Parts {
		switch {
		case p.Call != nil:
			flush()
			args := p.Call.Args
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			out = append(out, functionCallItem{Type: "function_call", CallID: p.Call.ID, Name: p.Call.Name, Arguments: args})
		case p.Thought:
			// Only encrypted reasoning can be sent back; a summary alone
			// is not reasoning the model can resume from.
			if p.Signature == "" {
				continue
			}
			flush()
			item := reasoningItem{Type: "reasoning", Summary: []summaryPart{}, EncryptedContent: p.Signature}
			if p.Text != "" {
				item.Summary = append(item.Summary, summaryPart{Type: "summary_text", Text: p.Text})
			}
			out = append(out, item)
		case p.Text != "":
			text = append(text, contentPart{Type: "output_text", Text: p.Text})
		}
	}
	flush()
	return out
}

// userItems converts a user entry: first one function_call_output per
// function response, in order, then a user message with the media the
// tools returned (an output item carries text only) and the entry's own
// text and media.
func userItems(m *llm.Message) []any {
	var out []any
	var content []contentPart
	for _, p := range m.Parts {
		r := p.Response
		if r == nil {
			continue
		}
		output := r.Output
		if len(r.Media) > 0 {
			output += fmt.Sprintf("\n\n[%s returned %d attachment(s); they follow in the next message.]", r.Name, len(r.Media))
			content = append(content, contentPart{Type: "input_text", Text: fmt.Sprintf("Attachments returned by %s (call %s):", r.Name, r.ID)})
			for i := range r.Media {
				content = append(content, mediaPart(&r.Media[i]))
			}
		}
		out = append(out, functionCallOutputItem{Type: "function_call_output", CallID: r.ID, Output: output})
	}
	for _, p := range m.Parts {
		switch {
		case p.Response != nil, p.Call != nil, p.Thought:
		case p.Media != nil:
			content = append(content, mediaPart(p.Media))
		case p.Text != "":
			content = append(content, contentPart{Type: "input_text", Text: p.Text})
		}
	}
	if len(content) > 0 {
		out = append(out, messageItem{Type: "message", Role: "user", Content: content})
	}
	return out
}

// mediaPart renders inline data: images as data URLs, PDFs as inline
// files. Other types have no encoding the API takes, so the model is told
// what was left out instead of receiving nothing.
func mediaPart(m *llm.Media) contentPart {
	data := base64.StdEncoding.EncodeToString(m.Data)
	switch {
	case strings.HasPrefix(m.MIMEType, "image/"):
		return contentPart{Type: "input_image", ImageURL: "data:" + m.MIMEType + ";base64," + data}
	case m.MIMEType == "application/pdf":
		return contentPart{Type: "input_file", Filename: "attachment.pdf", FileData: "data:application/pdf;base64," + data}
	}
	return contentPart{Type: "input_text", Text: fmt.Sprintf("[%d bytes of %s omitted: this provider accepts only images and PDF files]", len(m.Data), m.MIMEType)}
}
