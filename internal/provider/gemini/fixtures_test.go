package gemini

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

// recordedSignatures reads the thoughtSignature values out of a recorded
// body on its own, independently of the decoder under test.
func recordedSignatures(t testing.TB, body string) []string {
	t.Helper()
	var sigs []string
	for _, ev := range strings.Split(body, "\r\n\r\n") {
		ev = strings.TrimSpace(strings.TrimPrefix(ev, "data: "))
		if ev == "" {
			continue
		}
		var r struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						ThoughtSignature string `json:"thoughtSignature"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(ev), &r); err != nil {
			t.Fatalf("recorded event: %v", err)
		}
		for _, c := range r.Candidates {
			for _, p := range c.Content.Parts {
				if p.ThoughtSignature != "" {
					sigs = append(sigs, p.ThoughtSignature)
				}
			}
		}
	}
	return sigs
}

type wantTurn struct {
	text string
	// calls are compared without their ids, which are made up per run;
	// callSigs says which calls carry a recorded signature, in order.
	calls    []llm.FunctionCall
	callSigs []bool
	// textSig says the recorded signature rides on the text.
	textSig bool
	finish  llm.FinishReason
	usage   llm.Usage
}

var generatedID = regexp.MustCompile(`^[a-z]+-\d{13}-[0-9a-f]{8}$`)

func checkTurn(t *testing.T, r result, w wantTurn, sigs []string) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("error: %v", r.Err)
	}
	if r.Text != w.text || r.Thought != "" {
		t.Errorf("text = %q, thought = %q, want %q and none", r.Text, r.Thought, w.text)
	}
	seen := map[string]bool{}
	var gotSigs []string
	var calls []llm.FunctionCall
	for i, c := range r.Calls {
		if !generatedID.MatchString(c.ID) || !strings.HasPrefix(c.ID, c.Name+"-") || seen[c.ID] {
			t.Errorf("call id %q is not a fresh name-<ms>-<rand> id", c.ID)
		}
		seen[c.ID] = true
		if i < len(w.callSigs) && w.callSigs[i] != (c.Signature != "") {
			t.Errorf("call %d signature %q, want one: %v", i, c.Signature, w.callSigs[i])
		}
		if c.Signature != "" {
			gotSigs = append(gotSigs, c.Signature)
		}
		c.ID, c.Signature = "", ""
		calls = append(calls, c)
	}
	if !reflect.DeepEqual(calls, w.calls) {
		t.Errorf("calls = %#v\nwant %#v", calls, w.calls)
	}
	if w.textSig != (len(r.Sigs) == 1) {
		t.Errorf("text signatures %d, want one: %v", len(r.Sigs), w.textSig)
	}
	gotSigs = append(gotSigs, r.Sigs...)
	if !reflect.DeepEqual(gotSigs, sigs) {
		t.Errorf("signatures differ from the recording:\n%q\nwant\n%q", gotSigs, sigs)
	}
	if len(r.Finish) != 1 || r.Finish[0] != w.finish {
		t.Errorf("finish reasons = %v, want [%v]", r.Finish, w.finish)
	}
	if r.Usage == nil || *r.Usage != w.usage {
		t.Errorf("usage = %+v, want %+v", r.Usage, w.usage)
	}
}

func replayCassette(t *testing.T, name string, want []wantTurn) {
	c := providertest.LoadCassette(t, name)
	if len(c.Interactions) != len(want) {
		t.Fatalf("%s has %d interactions, test expects %d", name, len(c.Interactions), len(want))
	}
	for _, piece := range providertest.PieceSizes {
		for i, in := range c.Interactions {
			t.Run(fmt.Sprintf("interaction%d/piece%d", i, piece), func(t *testing.T) {
				s := newServer(t, reply{
					Status: in.Response.Code,
					Header: map[string]string{"Content-Type": in.Response.Headers["Content-Type"][0]},
					Body:   in.Response.Body,
					Piece:  piece,
				})
				r := run(t, s.client(Config{}), simpleRequest())
				checkTurn(t, r, want[i], recordedSignatures(t, in.Response.Body))
			})
		}
	}
}

func TestRecordedFlashTool(t *testing.T) {
	replayCassette(t, "google-gemini-2.5-flash-tool-streaming.yaml", []wantTurn{
		{
			calls:    []llm.FunctionCall{{Name: "weather", Args: `{"location": "Florence,Italy"}`}},
			callSigs: []bool{true},
			finish:   llm.FinishToolCalls,
			usage:    llm.Usage{InputTokens: 54, OutputTokens: 15 + 54, ReasoningTokens: 54, TotalTokens: 123},
		},
		{
			text:   "The weather in Florence, Italy is 40 C.",
			finish: llm.FinishStop,
			usage:  llm.Usage{InputTokens: 84, OutputTokens: 12, TotalTokens: 96},
		},
	})
}

func TestRecordedProTool(t *testing.T) {
	replayCassette(t, "google-gemini-2.5-pro-tool-streaming.yaml", []wantTurn{
		{
			// The finish reason comes in an event of its own, with content
			// but no parts.
			calls:    []llm.FunctionCall{{Name: "weather", Args: `{"location": "Florence,Italy"}`}},
			callSigs: []bool{true},
			finish:   llm.FinishToolCalls,
			usage:    llm.Usage{InputTokens: 54, OutputTokens: 15 + 128, ReasoningTokens: 128, TotalTokens: 197},
		},
		{
			text:    "The weather in Florence, Italy is 40 C.",
			textSig: true,
			finish:  llm.FinishStop,
			usage:   llm.Usage{InputTokens: 84, OutputTokens: 12 + 225, ReasoningTokens: 225, TotalTokens: 321},
		},
	})
}

func TestRecordedProMultiTool(t *testing.T) {
	replayCassette(t, "google-gemini-2.5-pro-multi-tool-streaming.yaml", []wantTurn{
		{
			// The arguments keep the server's key order and spacing.
			calls: []llm.FunctionCall{
				{Name: "add", Args: `{"b": 3,"a": 2}`},
				{Name: "multiply", Args: `{"b": 3,"a": 2}`},
			},
			callSigs: []bool{true, false},
			finish:   llm.FinishToolCalls,
			usage:    llm.Usage{InputTokens: 121, OutputTokens: 36 + 285, ReasoningTokens: 285, TotalTokens: 442},
		},
		{
			text:   "The sum of 2 and 3 is 5 and the product is 6.\n",
			finish: llm.FinishStop,
			usage:  llm.Usage{InputTokens: 181, OutputTokens: 18, TotalTokens: 199},
		},
	})
}

func TestRecordedGemini3ToolCall(t *testing.T) {
	body := sseBody(providertest.ChunkLines(t, "google-gemini-3-pro-tool-call.chunks.txt")...)
	want := wantTurn{
		calls:    []llm.FunctionCall{{Name: "weather", Args: `{"location":"San Francisco"}`}},
		callSigs: []bool{true},
		finish:   llm.FinishToolCalls,
		usage:    llm.Usage{InputTokens: 29, OutputTokens: 15 + 45, ReasoningTokens: 45, TotalTokens: 89},
	}
	sigs := recordedSignatures(t, body)
	if len(sigs) != 1 || len(sigs[0]) != 396 {
		t.Fatalf("fixture signatures %d", len(sigs))
	}
	for _, piece := range providertest.PieceSizes {
		t.Run(fmt.Sprintf("piece%d", piece), func(t *testing.T) {
			s := newServer(t, reply{Body: body, Piece: piece})
			checkTurn(t, run(t, s.client(Config{}), simpleRequest()), want, sigs)
		})
	}
}

// The recorded follow-up requests show what the official SDK sent after
// the tool results; ply's conversion of the same history must agree on
// the fields the server interprets. Two conventions differ on purpose:
// the recording's client named the response field "result" where ply
// uses "output" and "error" (as Gemini CLI does), and its system
// instruction carried a role, which the API ignores.
func TestRequestMatchesRecordedFollowUp(t *testing.T) {
	c := providertest.LoadCassette(t, "google-gemini-2.5-pro-multi-tool-streaming.yaml")
	var recorded map[string]any
	if err := json.Unmarshal([]byte(c.Interactions[1].Request.Body), &recorded); err != nil {
		t.Fatal(err)
	}
	var tools []llm.ToolDecl
	for _, name := range []string{"add", "multiply"} {
		tools = append(tools, llm.ToolDecl{
			Name: name, Description: map[string]string{"add": "Add two numbers", "multiply": "Multiply two numbers"}[name],
			Parameters: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,
				"properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`),
		})
	}
	history := []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{{Text: "Add and multiply the number 2 and 3"}}},
		{Role: llm.RoleModel, Parts: []llm.Part{
			{Call: &llm.FunctionCall{ID: "1", Name: "add", Args: `{"a": 2, "b": 3}`}},
			{Call: &llm.FunctionCall{ID: "2", Name: "multiply", Args: `{"a": 2, "b": 3}`}},
		}},
		{Role: llm.RoleUser, Parts: []llm.Part{
			{Response: &llm.FunctionResponse{ID: "1", Name: "add", Output: "5"}},
			{Response: &llm.FunctionResponse{ID: "2", Name: "multiply", Output: "6"}},
		}},
	}
	s := newServer(t, reply{Body: stopBody})
	req := &llm.Request{
		Model:  "gemini-2.5-pro",
		System: "You are a helpful assistant. Always use both add and multiply at the same time.",
		Tools:  tools, MaxOutputTokens: 4000, Messages: history,
	}
	if r := run(t, s.client(Config{}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	want := strings.ReplaceAll(c.Interactions[1].Request.Body, `"response":{"result":`, `"response":{"output":`)
	if err := json.Unmarshal([]byte(want), &recorded); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"contents", "generationConfig", "tools"} {
		if !reflect.DeepEqual(got[key], recorded[key]) {
			t.Errorf("%s = %s\nrecorded %s", key, mustJSON(t, got[key]), mustJSON(t, recorded[key]))
		}
	}
	gotSys, _ := got["systemInstruction"].(map[string]any)
	if !reflect.DeepEqual(gotSys["parts"], recorded["systemInstruction"].(map[string]any)["parts"]) {
		t.Errorf("systemInstruction = %s", mustJSON(t, gotSys))
	}
	if want := "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"; s.RequestURL(0) != want {
		t.Errorf("url %s, want %s", s.RequestURL(0), want)
	}
}

// assemble builds a model entry from chunks the way the chat layer does
// (internal/chat's reply.add): a signature joins the open thought without
// one or starts an empty thought, text extends the last text part, calls
// become parts of their own.
func assemble(chunks []llm.Chunk) llm.Message {
	m := llm.Message{Role: llm.RoleModel}
	for _, ch := range chunks {
		n := len(m.Parts)
		if ch.Thought != "" || ch.ThoughtSignature != "" {
			if n > 0 && m.Parts[n-1].Thought && m.Parts[n-1].Signature == "" {
				m.Parts[n-1].Text += ch.Thought
				m.Parts[n-1].Signature = ch.ThoughtSignature
			} else {
				m.Parts = append(m.Parts, llm.Part{Text: ch.Thought, Thought: true, Signature: ch.ThoughtSignature})
			}
		}
		n = len(m.Parts)
		if ch.Text != "" {
			if n > 0 && !m.Parts[n-1].Thought && m.Parts[n-1].Call == nil {
				m.Parts[n-1].Text += ch.Text
			} else {
				m.Parts = append(m.Parts, llm.Part{Text: ch.Text})
			}
		}
		for i := range ch.Calls {
			c := ch.Calls[i]
			m.Parts = append(m.Parts, llm.Part{Call: &c})
		}
	}
	return m
}

// A recorded reply, kept in history and sent back, carries each
// thoughtSignature on the part it came with: on the functionCall, and on
// the text.
func TestRecordedSignaturesGoBack(t *testing.T) {
	c := providertest.LoadCassette(t, "google-gemini-2.5-pro-tool-streaming.yaml")
	var replies []reply
	for _, in := range c.Interactions {
		replies = append(replies, reply{Body: in.Response.Body})
	}
	s := newServer(t, append(replies, reply{Body: stopBody})...)
	cl := s.client(Config{})
	history := simpleRequest().Messages
	for range c.Interactions {
		var chunks []llm.Chunk
		for ch, err := range cl.Stream(t.Context(), &llm.Request{Messages: history}) {
			if err != nil {
				t.Fatal(err)
			}
			chunks = append(chunks, ch)
		}
		m := assemble(chunks)
		history = append(history, m)
		if calls := m.Calls(); len(calls) > 0 {
			history = append(history, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: calls[0].ID, Name: calls[0].Name, Output: "40 C"}},
			}})
		}
	}
	if r := run(t, cl, &llm.Request{Messages: history}); r.Err != nil {
		t.Fatal(r.Err)
	}
	sigs := recordedSignatures(t, c.Interactions[0].Response.Body+c.Interactions[1].Response.Body)
	contents := s.Body(t, 2)["contents"].([]any)
	if len(contents) != 4 {
		t.Fatalf("contents %s", mustJSON(t, contents))
	}
	callPart := contents[1].(map[string]any)["parts"].([]any)[0].(map[string]any)
	textPart := contents[3].(map[string]any)["parts"].([]any)[0].(map[string]any)
	if callPart["thoughtSignature"] != sigs[0] || callPart["functionCall"] == nil {
		t.Errorf("call part %s", mustJSON(t, callPart))
	}
	if textPart["thoughtSignature"] != sigs[1] || textPart["text"] != "The weather in Florence, Italy is 40 C." {
		t.Errorf("text part %s", mustJSON(t, textPart))
	}
	resp := contents[2].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)
	call := callPart["functionCall"].(map[string]any)
	if resp["id"] != call["id"] || resp["name"] != "weather" {
		t.Errorf("response %v does not pair with call %v", resp, call)
	}
}
