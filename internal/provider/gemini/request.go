package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/plyhq/ply/internal/llm"
)

// The wire shapes of a generateContent request. Only what ply sends is
// declared; the JSON field order follows the struct order, which keeps
// request bodies stable from one turn to the next.
type generateRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []tool            `json:"tools,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response responseResult `json:"response"`
}

// responseResult is the response object: {"output": ...} for a result,
// {"error": ...} for a failure, the convention Gemini's own tools use.
type responseResult struct {
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
}

type tool struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool `json:"includeThoughts"`
	ThinkingBudget  int  `json:"thinkingBudget,omitempty"`
}

// maxThinkingBudget is the largest thinking budget every Gemini thinking
// model takes.
const maxThinkingBudget = 24576

// buildRequest converts a provider-neutral request to the wire request and
// returns the model it is for.
func (c *Client) buildRequest(req *llm.Request) (string, *generateRequest, error) {
	model, out, err := c.buildHead(req)
	if err != nil {
		return "", nil, err
	}
	contents, err := convertContents(req.Messages)
	if err != nil {
		return "", nil, err
	}
	out.Contents = contents
	return model, out, nil
}

// buildHead is the wire request without the history's contents.
func (c *Client) buildHead(req *llm.Request) (string, *generateRequest, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return "", nil, fmt.Errorf("gemini: no model given")
	}
	out := &generateRequest{}
	if req.System != "" {
		out.SystemInstruction = &content{Parts: []part{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		decls := make([]functionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema, err := convertSchema(t.Parameters)
			if err != nil {
				return "", nil, fmt.Errorf("gemini: tool %s: %w", t.Name, err)
			}
			decls = append(decls, functionDeclaration{Name: t.Name, Description: t.Description, Parameters: schema})
		}
		out.Tools = []tool{{FunctionDeclarations: decls}}
	}
	gc := generationConfig{MaxOutputTokens: req.MaxOutputTokens, Temperature: req.Temperature}
	// maxOutputTokens counts the thinking: the budget stays below it.
	budget := min(req.Effort.ThinkingBudget(req.MaxOutputTokens), maxThinkingBudget)
	if c.cfg.IncludeThoughts || budget > 0 {
		gc.ThinkingConfig = &thinkingConfig{IncludeThoughts: c.cfg.IncludeThoughts, ThinkingBudget: budget}
	}
	if gc != (generationConfig{}) {
		out.GenerationConfig = &gc
	}
	return model, out, nil
}

// convertContents turns the history into contents. Entries that convert to
// nothing are dropped and consecutive entries of one role merged, so that
// user and model turns alternate; in a user turn the function responses
// come first, in the order of the calls they answer.
func convertContents(history []llm.Message) ([]content, error) {
	var out []content
	var calls []*llm.FunctionCall // the calls of the last model turn
	for i := range history {
		m := &history[i]
		last := len(out) - 1
		switch m.Role {
		case llm.RoleModel:
			parts := modelParts(m)
			if len(parts) == 0 {
				continue
			}
			if last >= 0 && out[last].Role == "model" {
				out[last].Parts = append(out[last].Parts, parts...)
				calls = append(calls, m.Calls()...)
			} else {
				out = append(out, content{Role: "model", Parts: parts})
				calls = m.Calls()
			}
		case llm.RoleUser:
			responses, rest := userParts(m, calls)
			parts := append(responses, rest...)
			switch {
			case len(parts) == 0:
			case last >= 0 && out[last].Role == "user":
				out[last].Parts = mergeUser(out[last].Parts, parts)
			default:
				out = append(out, content{Role: "user", Parts: parts})
			}
		default:
			return nil, fmt.Errorf("gemini: message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// mergeUser appends parts to a user turn, keeping every function
// response ahead of the other parts.
func mergeUser(prev, next []part) []part {
	var responses, rest []part
	for _, p := range slices.Concat(prev, next) {
		if p.FunctionResponse != nil {
			responses = append(responses, p)
		} else {
			rest = append(rest, p)
		}
	}
	return append(responses, rest...)
}

// modelParts converts a model entry. A signature travels on the part it
// came with. A thought that has no text but a signature is how the chat
// layer records a signature that arrived on a text part, or alone: it
// goes onto the next part, or is dropped when nothing follows.
func modelParts(m *llm.Message) []part {
	var out []part
	var carry string
	for _, p := range m.Parts {
		sig := p.Signature
		if sig == "" {
			sig = carry
		}
		switch {
		case p.Call != nil:
			if p.Call.Signature != "" {
				sig = p.Call.Signature
			}
			out = append(out, part{
				FunctionCall:     &functionCall{ID: p.Call.ID, Name: p.Call.Name, Args: callArgs(p.Call.Args)},
				ThoughtSignature: sig,
			})
		case p.Thought && p.Text == "":
			carry = p.Signature
			continue
		case p.Thought:
			out = append(out, part{Text: p.Text, Thought: true, ThoughtSignature: sig})
		case p.Text != "":
			out = append(out, part{Text: p.Text, ThoughtSignature: sig})
		case p.Media != nil:
			out = append(out, part{InlineData: inline(p.Media), ThoughtSignature: sig})
		default:
			continue // an empty part keeps the carried signature
		}
		carry = ""
	}
	return out
}

// userParts converts a user entry into its function responses, ordered
// like the calls of the model turn before it (Gemini pairs them by
// position and name, having no call ids of its own), and the rest: media
// the tools returned, then the entry's own text and media.
func userParts(m *llm.Message, calls []*llm.FunctionCall) (responses, rest []part) {
	for _, x := range orderResponses(m, calls) {
		responses = append(responses, responsePart(x, calls))
		// Media cannot go inside a functionResponse on most models; it
		// follows in the same turn.
		rest = append(rest, responseMedia(x.r)...)
	}
	return responses, append(rest, ownParts(m)...)
}

// placedResponse is a function response and the index of the call it
// answers (len(calls) for none).
type placedResponse struct {
	r   *llm.FunctionResponse
	pos int
}

// orderResponses returns m's function responses ordered like calls.
func orderResponses(m *llm.Message, calls []*llm.FunctionCall) []placedResponse {
	var rs []placedResponse
	used := make([]bool, len(calls))
	for _, p := range m.Parts {
		if p.Response == nil {
			continue
		}
		pos := len(calls) // unmatched responses keep their order, last
		for j, c := range calls {
			if !used[j] && c.ID == p.Response.ID && c.ID != "" {
				pos = j
				break
			}
		}
		if pos == len(calls) {
			for j, c := range calls {
				if !used[j] && c.Name == p.Response.Name {
					pos = j
					break
				}
			}
		}
		if pos < len(calls) {
			used[pos] = true
		}
		rs = append(rs, placedResponse{p.Response, pos})
	}
	slices.SortStableFunc(rs, func(a, b placedResponse) int { return a.pos - b.pos })
	return rs
}

// responsePart is the functionResponse part of x; a response without a
// name takes its call's.
func responsePart(x placedResponse, calls []*llm.FunctionCall) part {
	r := x.r
	name := r.Name
	if name == "" && x.pos < len(calls) {
		name = calls[x.pos].Name
	}
	fr := &functionResponse{ID: r.ID, Name: name}
	if r.IsError {
		fr.Response.Error = r.Output
	} else {
		fr.Response.Output = r.Output
	}
	return part{FunctionResponse: fr}
}

// responseMedia is the media r returned, as parts of their own.
func responseMedia(r *llm.FunctionResponse) []part {
	var out []part
	for i := range r.Media {
		out = append(out, part{InlineData: inline(&r.Media[i])})
	}
	return out
}

// ownParts is the user entry's own text and media.
func ownParts(m *llm.Message) []part {
	var rest []part
	for _, p := range m.Parts {
		switch {
		case p.Response != nil, p.Call != nil, p.Thought:
		case p.Media != nil:
			rest = append(rest, part{InlineData: inline(p.Media)})
		case p.Text != "":
			rest = append(rest, part{Text: p.Text})
		}
	}
	return rest
}

func inline(m *llm.Media) *blob {
	return &blob{MIMEType: m.MIMEType, Data: base64.StdEncoding.EncodeToString(m.Data)}
}

// callArgs turns the model's raw argument text back into the object the
// API wants. Arguments that are not an object (cut short, or never valid)
// become {}: the call already failed validation when it ran, and its
// response says so; refusing the whole request would wedge the
// conversation instead.
func callArgs(args string) json.RawMessage {
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
