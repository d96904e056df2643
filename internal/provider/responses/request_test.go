package responses

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestRequestBody(t *testing.T) {
	temp := 0.25
	png := []byte{0x89, 'P', 'N', 'G'}
	req := &llm.Request{
		Model:           "gpt-5.1",
		System:          "be brief",
		MaxOutputTokens: 512,
		Temperature:     &temp,
		Tools: []llm.ToolDecl{
			{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "noargs", Description: "No parameters"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "read a.txt"}, {Text: "and b.png"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Text: "pondering", Thought: true, Signature: "gAAAAenc1"},
				{Text: "a summary without encrypted content is not sent", Thought: true},
				{Text: "Reading."},
				{Call: &llm.FunctionCall{ID: "call_1", Name: "read_file", Args: `{"path":"a.txt"}`}},
				{Call: &llm.FunctionCall{ID: "call_2", Name: "read_file", Args: `{"path":"b.png"}`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "call_1", Name: "read_file", Output: "hello"}},
				{Text: "also this"},
				{Response: &llm.FunctionResponse{ID: "call_2", Name: "read_file", Output: "an image", Media: []llm.Media{{MIMEType: "image/png", Data: png}}}},
			}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Thought: true, Signature: "gAAAAenc2"},
				{Call: &llm.FunctionCall{ID: "call_3", Name: "noargs", Args: ``}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: "call_3", Name: "noargs", Output: "failed", IsError: true}}}},
			{Role: llm.RoleModel, Parts: []llm.Part{{Text: "Done."}, {Text: " Really."}}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Text: "look"},
				{Media: &llm.Media{MIMEType: "application/pdf", Data: []byte{1, 2}}},
				{Media: &llm.Media{MIMEType: "text/csv", Data: []byte{3}}},
			}},
		},
	}
	s := newServer(t, reply{Body: stopBody})
	c := s.client(Config{APIKey: "sk-test", Reasoning: &Reasoning{Effort: "high", Summary: "auto"}, Headers: map[string]string{"X-Extra": "1"}})
	if r := run(t, c, req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	check := func(key, want string) {
		t.Helper()
		if w := decodeJSON(t, want); !reflect.DeepEqual(got[key], w) {
			t.Errorf("%s =\n%s\nwant\n%s", key, mustJSON(t, got[key]), want)
		}
	}
	check("model", `"gpt-5.1"`)
	check("instructions", `"be brief"`)
	check("stream", `true`)
	check("store", `false`)
	check("max_output_tokens", `512`)
	check("temperature", `0.25`)
	check("reasoning", `{"effort":"high","summary":"auto"}`)
	check("include", `["reasoning.encrypted_content"]`)
	check("tools", `[
		{"type":"function","name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":false},
		{"type":"function","name":"noargs","description":"No parameters","parameters":{"type":"object","properties":{}},"strict":false}]`)
	// Every call is followed by its output, paired by call_id; the
	// encrypted reasoning stays in front of the calls it led to.
	check("input", `[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"read a.txt"},{"type":"input_text","text":"and b.png"}]},
		{"type":"reasoning","summary":[{"type":"summary_text","text":"pondering"}],"encrypted_content":"gAAAAenc1"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading."}]},
		{"type":"function_call","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},
		{"type":"function_call","call_id":"call_2","name":"read_file","arguments":"{\"path\":\"b.png\"}"},
		{"type":"function_call_output","call_id":"call_1","output":"hello"},
		{"type":"function_call_output","call_id":"call_2","output":"an image\n\n[read_file returned 1 attachment(s); they follow in the next message.]"},
		{"type":"message","role":"user","content":[
			{"type":"input_text","text":"Attachments returned by read_file (call call_2):"},
			{"type":"input_image","image_url":"data:image/png;base64,iVBORw=="},
			{"type":"input_text","text":"also this"}]},
		{"type":"reasoning","summary":[],"encrypted_content":"gAAAAenc2"},
		{"type":"function_call","call_id":"call_3","name":"noargs","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_3","output":"failed"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."},{"type":"output_text","text":" Really."}]},
		{"type":"message","role":"user","content":[
			{"type":"input_text","text":"look"},
			{"type":"input_file","filename":"attachment.pdf","file_data":"data:application/pdf;base64,AQI="},
			{"type":"input_text","text":"[1 bytes of text/csv omitted: this provider accepts only images and PDF files]"}]}
	]`)
	checkPairing(t, got["input"].([]any))

	h := s.Header(0)
	for k, want := range map[string]string{
		"Authorization": "Bearer sk-test",
		"Content-Type":  "application/json",
		"Accept":        "text/event-stream",
		"X-Extra":       "1",
	} {
		if h.Get(k) != want {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), want)
		}
	}
}

// checkPairing fails on a call without an output or an output without a
// call: the server rejects either.
func checkPairing(t *testing.T, input []any) {
	t.Helper()
	calls, outputs := map[string]int{}, map[string]int{}
	for _, it := range input {
		m := it.(map[string]any)
		switch m["type"] {
		case "function_call":
			calls[m["call_id"].(string)]++
		case "function_call_output":
			if calls[m["call_id"].(string)] == 0 {
				t.Errorf("output for %v before its call", m["call_id"])
			}
			outputs[m["call_id"].(string)]++
		}
	}
	if !reflect.DeepEqual(calls, outputs) {
		t.Errorf("calls %v, outputs %v", calls, outputs)
	}
}

func TestRequestDefaults(t *testing.T) {
	s := newServer(t, reply{Body: stopBody})
	if r := run(t, s.client(Config{Model: "m1"}), simpleRequest()); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	for _, key := range []string{"instructions", "tools", "max_output_tokens", "temperature", "reasoning", "include"} {
		if _, ok := got[key]; ok {
			t.Errorf("%s sent: %v", key, got[key])
		}
	}
	if got["model"] != "m1" || got["store"] != false || got["stream"] != true {
		t.Errorf("model %v store %v stream %v", got["model"], got["store"], got["stream"])
	}
	if s.Header(0).Get("Authorization") != "" {
		t.Errorf("Authorization sent without a key")
	}
}

func TestRequestErrors(t *testing.T) {
	c := New(Config{BaseURL: "http://127.0.0.1:1"})
	for _, req := range []*llm.Request{
		simpleRequest(), // no model anywhere
		{Model: "m", Messages: []llm.Message{{Role: "system"}}},
	} {
		n := 0
		for _, err := range c.Stream(t.Context(), req) {
			n++
			if err == nil {
				t.Errorf("no error for %+v", req)
			}
		}
		if n != 1 {
			t.Errorf("%d results, want one error", n)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":             "https://api.openai.com/v1/responses",
		"http://h/v1":  "http://h/v1/responses",
		"http://h/v1/": "http://h/v1/responses",
	} {
		if got := New(Config{BaseURL: in}).url; got != want {
			t.Errorf("BaseURL %q: url = %q, want %q", in, got, want)
		}
	}
}
