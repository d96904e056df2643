// Package llm holds the provider-neutral shape of a conversation: messages
// made of parts, the request the chat layer sends, the chunks a provider
// streams back, and the typed errors a provider reports.
//
// It owns no behaviour beyond small helpers on those types. It must not
// speak HTTP, know any wire format, or import any other package of ply:
// every layer above (provider, chat, turn, client, scheduler, tools) shares
// these types, so this package sits at the bottom of the graph.
package llm

import (
	"encoding/json"
	"strconv"
	"time"
)

// Role says who produced a message.
type Role string

const (
	RoleUser  Role = "user"
	RoleModel Role = "model"
)

// Message is one history entry: a user turn (prompt text, tool results) or
// a model turn (text, thoughts, tool calls).
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`

	// FinishReason is persisted for model entries so that a reply cut
	// mid-stream can be told apart from a finished one on resume.
	FinishReason FinishReason `json:"finish_reason,omitempty"`
	Usage        *Usage       `json:"usage,omitempty"`
}

// Part is one piece of a message. Exactly one of Text (with or without
// Thought), Call, Response or Media is meaningful.
type Part struct {
	Text string `json:"text,omitempty"`
	// Thought marks Text as reasoning, not visible reply.
	Thought bool `json:"thought,omitempty"`
	// Signature is an opaque token some providers attach to thoughts or
	// calls and require back verbatim on the next request.
	Signature string `json:"signature,omitempty"`

	Call     *FunctionCall     `json:"call,omitempty"`
	Response *FunctionResponse `json:"response,omitempty"`
	Media    *Media            `json:"media,omitempty"`
}

// FunctionCall is a complete tool call requested by the model. Args is the
// raw argument text exactly as the model produced it; it may not be valid
// JSON, and validating it is the scheduler's job, not the provider's.
type FunctionCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
	// Signature is an opaque token the provider attached to this call
	// (Gemini's thoughtSignature on a functionCall part) and requires back,
	// verbatim and on the same call, in later requests. It lives on the
	// call rather than only on Part so that it survives every layer that
	// copies calls out of chunks.
	Signature string `json:"signature,omitempty"`
	// RepeatOf, when set, marks an extra copy of a call the same reply
	// already made under the id RepeatOf: the chat layer gave it an id of
	// its own so that every call of the history is answered once, and it
	// is answered without being run.
	RepeatOf string `json:"repeat_of,omitempty"`
}

// FunctionResponse is a tool result sent back to the model. Output is never
// empty when sent (see the scheduler's result conversion).
type FunctionResponse struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Output  string  `json:"output"`
	IsError bool    `json:"is_error,omitempty"`
	Media   []Media `json:"media,omitempty"`
}

// Media is inline binary data, such as an image read by read_file.
type Media struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// FinishReason is why a model stopped producing output, normalised across
// providers.
type FinishReason string

const (
	FinishUnspecified   FinishReason = ""
	FinishStop          FinishReason = "STOP"
	FinishToolCalls     FinishReason = "TOOL_CALLS"
	FinishMaxTokens     FinishReason = "MAX_TOKENS"
	FinishContentFilter FinishReason = "CONTENT_FILTER"
	FinishOther         FinishReason = "OTHER"
)

// Usage is token accounting for one response (or a sum of several).
type Usage struct {
	InputTokens     int `json:"input_tokens"`
	OutputTokens    int `json:"output_tokens"`
	CachedTokens    int `json:"cached_tokens,omitempty"`
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	TotalTokens     int `json:"total_tokens"`
}

// Add accumulates o into u.
func (u *Usage) Add(o *Usage) {
	if o == nil {
		return
	}
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedTokens += o.CachedTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.TotalTokens += o.TotalTokens
}

// ToolDecl describes a tool offered to the model. Parameters is a JSON
// Schema object.
type ToolDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is everything a provider needs for one round-trip.
type Request struct {
	Model           string
	System          string
	Messages        []Message
	Tools           []ToolDecl
	MaxOutputTokens int // 0: provider default
	Temperature     *float64
	// Effort is the reasoning tier; "" leaves the provider's default.
	Effort Effort
}

// Chunk is one streamed piece of a response. Providers assemble tool-call
// fragments themselves and report each call once, complete, in Calls.
type Chunk struct {
	Text             string
	Thought          string
	ThoughtSignature string
	Calls            []FunctionCall
	FinishReason     FinishReason
	Usage            *Usage
}

// Empty reports whether the chunk carries nothing a caller would show or
// record.
func (c *Chunk) Empty() bool {
	return c.Text == "" && c.Thought == "" && c.ThoughtSignature == "" &&
		len(c.Calls) == 0 && c.FinishReason == "" && c.Usage == nil
}

// Calls returns the function calls of m in order.
func (m *Message) Calls() []*FunctionCall {
	var out []*FunctionCall
	for i := range m.Parts {
		if m.Parts[i].Call != nil {
			out = append(out, m.Parts[i].Call)
		}
	}
	return out
}

// Text returns the concatenated visible text of m.
func (m *Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if !p.Thought && p.Call == nil && p.Response == nil {
			// With one text part (the usual case) this is that part's
			// string itself: no copy of a large reply.
			s += p.Text
		}
	}
	return s
}

// ErrorKind classifies a provider error so the chat layer can branch on it.
type ErrorKind int

const (
	ErrUnknown       ErrorKind = iota
	ErrRateLimit               // 429 or a quota message
	ErrOverloaded              // 529 / 503 "overloaded"
	ErrContextLength           // the request does not fit the model's window
	ErrAuth                    // 401 / 403
	ErrBadRequest              // other 4xx
	ErrNotFound                // 404: unknown model or endpoint
	ErrServer                  // 5xx
	// ErrNotAPI: the URL answered 404, 405 or 501 with something other
	// than the API's JSON (a web server's page): it is not the API, and
	// asking again cannot help.
	ErrNotAPI
)

func (k ErrorKind) String() string {
	switch k {
	case ErrRateLimit:
		return "rate limited"
	case ErrOverloaded:
		return "overloaded"
	case ErrContextLength:
		return "context length exceeded"
	case ErrAuth:
		return "authentication failed"
	case ErrBadRequest:
		return "bad request"
	case ErrNotFound:
		return "not found"
	case ErrServer:
		return "server error"
	case ErrNotAPI:
		return "wrong endpoint"
	}
	return "error"
}

// APIError is an error answer from a provider's HTTP API.
type APIError struct {
	Provider   string // "openai", "anthropic", ...
	Kind       ErrorKind
	Status     int
	Code       string // provider's error code or type, when given
	Message    string // provider's own message
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	s := e.Provider + ": " + e.Kind.String()
	if e.Status != 0 {
		s += " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// InvalidStreamError reports a response stream whose content cannot be
// used: no choices, nothing at all, no finish reason, bad framing.
type InvalidStreamError struct {
	Reason string
}

func (e *InvalidStreamError) Error() string { return "invalid response stream: " + e.Reason }
