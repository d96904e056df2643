package gemini

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
	"github.com/plyhq/ply/internal/sse"
)

// The wire shapes of one streamed GenerateContentResponse. Unknown fields
// (safetyRatings, citationMetadata, modelVersion, ...) are ignored.
type streamResponse struct {
	Candidates     []candidate     `json:"candidates"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	Error          json.RawMessage `json:"error"`
}

type candidate struct {
	Index        int    `json:"index"`
	FinishReason string `json:"finishReason"`
	Content      *struct {
		Parts []wirePart `json:"parts"`
	} `json:"content"`
}

type wirePart struct {
	Text             string `json:"text"`
	Thought          bool   `json:"thought"`
	ThoughtSignature string `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

type promptFeedback struct {
	BlockReason string `json:"blockReason"`
}

type usageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

// convert normalises to ply's accounting, where OutputTokens includes the
// reasoning (as OpenAI counts it): Gemini's candidatesTokenCount leaves
// the thoughts out, and totalTokenCount is their sum with the prompt.
func (u *usageMetadata) convert() *llm.Usage {
	out := &llm.Usage{
		InputTokens:     u.PromptTokenCount,
		OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CachedTokens:    u.CachedContentTokenCount,
		ReasoningTokens: u.ThoughtsTokenCount,
		TotalTokens:     u.TotalTokenCount,
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("gemini: %w", &llm.InvalidStreamError{Reason: fmt.Sprintf(format, args...)})
}

// newCallID names a call the model gave no id: name-<unix ms>-<random>,
// the same form the chat layer uses.
func newCallID(name string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return name + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + hex.EncodeToString(b[:])
}

// decoder holds the state of one response.
type decoder struct {
	newID     func(name string) string
	sawAnswer bool // a candidate or a prompt block was seen
	sawCalls  bool
	finish    llm.FinishReason
	usage     *llm.Usage
}

// decodeStream reads an SSE stream and yields its chunks. It returns nil
// when the stream ended well or the consumer stopped; any error it returns
// has not been yielded yet. newID names calls that come without an id.
func decodeStream(body io.Reader, newID func(string) string, yield func(llm.Chunk, error) bool) error {
	d := &decoder{newID: newID}
	for ev, err := range sse.NewReader(body).Events() {
		if err != nil {
			return fmt.Errorf("gemini: reading stream: %w", err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		var r streamResponse
		if err := json.Unmarshal(data, &r); err != nil {
			return invalid("data is not JSON (%v): %s", err, transport.CapText(string(data)))
		}
		if len(r.Error) > 0 && string(r.Error) != "null" {
			return streamError(r.Error)
		}
		if !d.response(&r, yield) {
			return nil
		}
	}
	return d.end(yield)
}

// response applies one event and yields what it carries, one chunk per
// part so that text, thoughts and calls keep their order. It reports
// false when the consumer stopped.
func (d *decoder) response(r *streamResponse, yield func(llm.Chunk, error) bool) bool {
	if r.UsageMetadata != nil {
		// Every event repeats the usage so far; the last one counts.
		d.usage = r.UsageMetadata.convert()
	}
	if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" && len(r.Candidates) == 0 {
		// The prompt itself was blocked: no candidate will come.
		d.sawAnswer = true
		if d.finish == "" {
			d.finish = llm.FinishContentFilter
			return yield(llm.Chunk{FinishReason: d.finish}, nil)
		}
		return true
	}
	i := slices.IndexFunc(r.Candidates, func(c candidate) bool { return c.Index == 0 })
	if i < 0 {
		return true // ply asks for one candidate
	}
	c := &r.Candidates[i]
	d.sawAnswer = true
	if c.Content != nil {
		for j := range c.Content.Parts {
			out := d.part(&c.Content.Parts[j])
			if !out.Empty() && !yield(out, nil) {
				return false
			}
		}
	}
	if c.FinishReason != "" && d.finish == "" {
		d.finish = mapFinish(c.FinishReason, d.sawCalls)
		return yield(llm.Chunk{FinishReason: d.finish}, nil)
	}
	return true
}

// part converts one part. A call comes whole in one part, with its
// arguments as an object; they are passed on as the exact JSON text
// received.
func (d *decoder) part(p *wirePart) llm.Chunk {
	if fc := p.FunctionCall; fc != nil {
		d.sawCalls = true
		id := fc.ID
		if id == "" {
			id = d.newID(fc.Name)
		}
		args := string(bytes.TrimSpace(fc.Args))
		if args == "" || args == "null" {
			args = "{}"
		}
		return llm.Chunk{Calls: []llm.FunctionCall{{ID: id, Name: fc.Name, Args: args, Signature: p.ThoughtSignature}}}
	}
	if p.Thought {
		return llm.Chunk{Thought: p.Text, ThoughtSignature: p.ThoughtSignature}
	}
	// A signature on a text part (or on an empty one) travels beside the
	// text; the chat layer records it as a thought part without text,
	// which the request conversion puts back on the part that follows.
	return llm.Chunk{Text: p.Text, ThoughtSignature: p.ThoughtSignature}
}

// end yields the usage and judges the stream as a whole.
func (d *decoder) end(yield func(llm.Chunk, error) bool) error {
	if d.usage != nil {
		if !yield(llm.Chunk{Usage: d.usage}, nil) {
			return nil
		}
	}
	if !d.sawAnswer {
		return invalid("no candidates in response")
	}
	if d.finish == "" {
		return invalid("stream ended without a finish reason")
	}
	return nil
}

// mapFinish normalises a finish reason. Gemini says STOP after function
// calls too; ply's layers want TOOL_CALLS then.
func mapFinish(s string, calls bool) llm.FinishReason {
	switch s {
	case "STOP":
		if calls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	case "MAX_TOKENS":
		return llm.FinishMaxTokens
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY":
		return llm.FinishContentFilter
	}
	// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, LANGUAGE, OTHER, ...
	return llm.FinishOther
}
