package openai

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return m
}

func jsonOf(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return v
}

var stopBody = sseBody(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`)

func TestRequestBody(t *testing.T) {
	temp := 0.25
	png := []byte{0x89, 'P', 'N', 'G'}
	req := &llm.Request{
		Model:           "qwen3-coder",
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
				{Text: "pondering", Thought: true, Signature: "sig"},
				{Text: "Reading."},
				{Call: &llm.FunctionCall{ID: "c1", Name: "read_file", Args: `{"path":"a.txt"}`}},
				{Call: &llm.FunctionCall{ID: "c2", Name: "read_file", Args: `{"path":"b.png"}`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "c1", Name: "read_file", Output: "hello"}},
				{Text: "also this"},
				{Response: &llm.FunctionResponse{ID: "c2", Name: "read_file", Output: "an image", Media: []llm.Media{{MIMEType: "image/png", Data: png}}}},
			}},
			{Role: llm.RoleModel, Parts: []llm.Part{{Call: &llm.FunctionCall{ID: "c3", Name: "noargs", Args: `{}`}}}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "c3", Name: "noargs", Output: "failed", IsError: true}},
			}},
			{Role: llm.RoleModel, Parts: []llm.Part{{Text: "Done."}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "look"}, {Media: &llm.Media{MIMEType: "image/jpeg", Data: []byte{1, 2}}}, {Media: &llm.Media{MIMEType: "application/pdf", Data: []byte{3}}}}},
		},
	}
	s := newServer(t, reply{Body: stopBody})
	c := s.client(Config{APIKey: "sk-test", Headers: map[string]string{"X-Extra": "1"}})
	if r := run(t, c, req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)

	check := func(key, want string) {
		t.Helper()
		if w := jsonOf(t, want); !reflect.DeepEqual(got[key], w) {
			gj, _ := json.Marshal(got[key])
			t.Errorf("%s =\n%s\nwant\n%s", key, gj, want)
		}
	}
	check("model", `"qwen3-coder"`)
	check("stream", `true`)
	check("stream_options", `{"include_usage":true}`)
	check("max_tokens", `512`)
	check("temperature", `0.25`)
	if _, ok := got["max_completion_tokens"]; ok {
		t.Errorf("max_completion_tokens sent")
	}
	check("tools", `[
		{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
		{"type":"function","function":{"name":"noargs","description":"No parameters","parameters":{"type":"object","properties":{}}}}
	]`)
	check("messages", `[
		{"role":"system","content":"be brief"},
		{"role":"user","content":"read a.txt\nand b.png"},
		{"role":"assistant","content":"Reading.","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}},
			{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.png\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"hello"},
		{"role":"tool","tool_call_id":"c2","content":"an image\n\n[read_file returned 1 attachment(s); they follow in the next message.]"},
		{"role":"user","content":[
			{"type":"text","text":"Attachments returned by read_file (call c2):"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}},
			{"type":"text","text":"also this"}]},
		{"role":"assistant","tool_calls":[{"id":"c3","type":"function","function":{"name":"noargs","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c3","content":"failed"},
		{"role":"assistant","content":"Done."},
		{"role":"user","content":[
			{"type":"text","text":"look"},
			{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AQI="}},
			{"type":"text","text":"[1 bytes of application/pdf omitted: this provider accepts only images]"}]}
	]`)

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

func TestRequestOptions(t *testing.T) {
	s := newServer(t, reply{Body: stopBody}, reply{Body: stopBody})
	req := &llm.Request{
		MaxOutputTokens: 100,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "q"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{{Text: "hmm", Thought: true}, {Text: "a"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{{Text: "only a thought", Thought: true}}},
		},
	}
	// Thoughts stay home by default; the model comes from the config.
	c := s.client(Config{Model: "m1", MaxTokensField: "max_completion_tokens"})
	if r := run(t, c, req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	if got["model"] != "m1" || got["max_completion_tokens"] != 100.0 || got["max_tokens"] != nil {
		t.Errorf("model/max fields: %v %v %v", got["model"], got["max_completion_tokens"], got["max_tokens"])
	}
	if strings.Contains(mustJSON(t, got["messages"]), "reasoning_content") {
		t.Errorf("reasoning_content sent by default: %s", mustJSON(t, got["messages"]))
	}
	if s.Header(0).Get("Authorization") != "" {
		t.Errorf("Authorization sent without a key")
	}

	c = s.client(Config{Model: "m1", SendReasoning: true})
	if r := run(t, c, req); r.Err != nil {
		t.Fatal(r.Err)
	}
	want := jsonOf(t, `[
		{"role":"user","content":"q"},
		{"role":"assistant","content":"a","reasoning_content":"hmm"},
		{"role":"assistant","content":"","reasoning_content":"only a thought"}]`)
	if got := s.Body(t, 1)["messages"]; !reflect.DeepEqual(got, want) {
		t.Errorf("messages = %s", mustJSON(t, got))
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
		"":                           "https://api.openai.com/v1/chat/completions",
		"http://h/v1":                "http://h/v1/chat/completions",
		"http://h/v1/":               "http://h/v1/chat/completions",
		"https://dashscope.example/": "https://dashscope.example/chat/completions",
	} {
		if got := New(Config{BaseURL: in}).url; got != want {
			t.Errorf("BaseURL %q: url = %q, want %q", in, got, want)
		}
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
