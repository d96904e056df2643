package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// ReplyOf is a model reply as a history entry, from what a stream gave.
func ReplyOf(r Result) llm.Message {
	m := llm.Message{Role: llm.RoleModel}
	if r.Thought != "" {
		p := llm.Part{Text: r.Thought, Thought: true}
		if len(r.Sigs) > 0 {
			p.Signature = r.Sigs[0]
		}
		m.Parts = append(m.Parts, p)
	}
	if r.Text != "" {
		m.Parts = append(m.Parts, llm.Part{Text: r.Text})
	}
	for i := range r.Calls {
		c := r.Calls[i]
		m.Parts = append(m.Parts, llm.Part{Call: &c})
	}
	return m
}

// SessionRequests returns the requests of a session as the chat makes
// them, one a round, for comparing how a provider encodes each: the
// history grows by a reply (taken in turn from replies, then made up: text,
// thoughts, calls, characters JSON escapes) and its results; now and then
// an older result is cut (its entry replaced, as the chat does, never
// changed in place), the front is replaced by a summary, and entries
// carry media; the system prompt, the tools and the settings change now
// and then (new values, as the chat's do). Each request shares its unchanged entries with the one
// before, as the chat's do.
func SessionRequests(replies []llm.Message, rounds int) []*llm.Request {
	sys := "You are a test <agent> & \"helper\"."
	tools := []llm.ToolDecl{{Name: "read_file", Description: "Reads a file.", Parameters: []byte(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}}
	h := []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "start <here> & now"}}}}
	var out []*llm.Request
	for r := range rounds {
		var reply llm.Message
		if r < len(replies) {
			reply = replies[r]
		} else {
			id := fmt.Sprintf("call_%d", r)
			reply = llm.Message{Role: llm.RoleModel, FinishReason: llm.FinishToolCalls, Parts: []llm.Part{
				{Text: fmt.Sprintf("thinking about round %d \u2028 \"q\"", r), Thought: true, Signature: "sig"},
				{Text: fmt.Sprintf("Round %d: <b>reading</b> é 世", r)},
				{Call: &llm.FunctionCall{ID: id, Name: "read_file", Args: fmt.Sprintf(`{"file_path":"f%d.txt"}`, r)}},
			}}
		}
		h = append(h, reply)
		var res []llm.Part
		for _, c := range reply.Calls() {
			resp := &llm.FunctionResponse{ID: c.ID, Name: c.Name, Output: fmt.Sprintf("line 1\nline 2 <%d> \"x\" \\ \t", r)}
			if r%7 == 3 {
				resp.Media = []llm.Media{{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', byte(r)}}}
			}
			res = append(res, llm.Part{Response: resp})
		}
		if len(res) == 0 {
			res = []llm.Part{{Text: fmt.Sprintf("next prompt %d", r)}}
		}
		if r%5 == 4 {
			res = append(res, llm.Part{Media: &llm.Media{MIMEType: "application/pdf", Data: []byte("%PDF")}})
		}
		h = append(h, llm.Message{Role: llm.RoleUser, Parts: res})
		if r%4 == 2 && len(h) > 4 {
			// Cut an older result: a new entry with new parts.
			for i := 2; i < len(h)-2; i += 2 {
				if m := h[i]; len(m.Parts) > 0 && m.Parts[0].Response != nil && m.Parts[0].Response.Output != "cut" {
					m.Parts = slices.Clone(m.Parts)
					resp := *m.Parts[0].Response
					resp.Output = "cut"
					m.Parts[0].Response = &resp
					h = slices.Clone(h)
					h[i] = m
					break
				}
			}
		}
		if r%9 == 8 && len(h) > 6 {
			// A summary replaces the front.
			h = append([]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: fmt.Sprintf("summary %d", r)}}},
				{Role: llm.RoleModel, Parts: []llm.Part{{Text: "Understood."}}, FinishReason: llm.FinishStop}}, h[5:]...)
		}
		req := &llm.Request{Model: "m", System: sys, Tools: tools, MaxOutputTokens: 1000, Messages: slices.Clone(h)}
		if r%11 == 10 {
			sys = fmt.Sprintf("You are a test agent, mode %d.", r)
			req.System = sys
		}
		if r%13 == 12 {
			tools = append(slices.Clip(tools), llm.ToolDecl{Name: fmt.Sprintf("tool_%d", r), Description: "A <tool>.",
				Parameters: []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)})
			req.Tools = tools
		}
		if r%17 == 16 {
			temp := float64(r%3) / 2
			req.Temperature = &temp
			req.MaxOutputTokens = 2000
		}
		out = append(out, req)
	}
	return out
}

// CheckEncode compares, request after request with one client (so that
// its cache of encoded entries is used), the body a provider streams —
// pieces from encode — with json.Marshal of the wire request build makes
// whole: the cache must never change a byte of what is sent.
func CheckEncode(t testing.TB, reqs []*llm.Request, build func(*llm.Request) (any, error), encode func(*llm.Request) ([][]byte, error)) {
	t.Helper()
	for i, req := range reqs {
		wire, err := build(req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(wire)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encode(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(got, nil); !bytes.Equal(got, want) {
			t.Fatalf("request %d: body differs from the whole encoding:\n got %s\nwant %s", i, got, want)
		}
	}
}
