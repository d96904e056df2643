package anthropic

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestRequestBody(t *testing.T) {
	temp := 0.25
	png := []byte{0x89, 'P', 'N', 'G'}
	req := &llm.Request{
		Model:           "claude-sonnet-4-5",
		System:          "be brief",
		MaxOutputTokens: 512,
		Temperature:     &temp,
		Tools: []llm.ToolDecl{
			{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "noargs", Description: "No parameters"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "read a.txt"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Text: "pondering", Thought: true, Signature: "sig1"},
				{Text: "unsigned thoughts are dropped", Thought: true},
				{Text: "Reading."},
				{Text: ""},
				{Call: &llm.FunctionCall{ID: "c1", Name: "read_file", Args: `{"path": "a.txt"}`}},
				{Call: &llm.FunctionCall{ID: "c2", Name: "read_file", Args: `{"path": "b.pn`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Text: "also this"},
				{Response: &llm.FunctionResponse{ID: "c1", Name: "read_file", Output: "hello"}},
				{Response: &llm.FunctionResponse{ID: "c2", Name: "read_file", Output: "an image", Media: []llm.Media{{MIMEType: "image/png", Data: png}}}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "and another"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Thought: true, Signature: redactedPrefix + "abc"},
				{Call: &llm.FunctionCall{ID: "functions.noargs:0", Name: "noargs", Args: `[]`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "functions.noargs:0", Name: "noargs", Output: "failed", IsError: true}},
			}},
			{Role: llm.RoleModel, Parts: []llm.Part{{Text: "only an unsigned thought", Thought: true}}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Text: "look"},
				{Media: &llm.Media{MIMEType: "image/jpeg", Data: []byte{1, 2}}},
				{Media: &llm.Media{MIMEType: "text/csv", Data: []byte{3}}},
			}},
		},
	}
	s := newServer(t, reply{Body: stopBody})
	c := s.client(Config{APIKey: "sk-ant-test", Headers: map[string]string{"Anthropic-Beta": "x"}})
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
	check("model", `"claude-sonnet-4-5"`)
	check("max_tokens", `512`)
	check("temperature", `0.25`)
	check("stream", `true`)
	check("system", `[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}]`)
	check("tools", `[
		{"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
		{"name":"noargs","description":"No parameters","input_schema":{"type":"object","properties":{}}}]`)
	if _, ok := got["thinking"]; ok {
		t.Errorf("thinking sent without a budget")
	}
	// Roles alternate (the two consecutive user entries are merged, the
	// model entry with nothing to send is dropped and its neighbours
	// merged), tool results come first in their message, thoughts keep
	// their signatures, and the last two user messages carry the cache
	// breakpoints.
	check("messages", `[
		{"role":"user","content":[{"type":"text","text":"read a.txt"}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"pondering","signature":"sig1"},
			{"type":"text","text":"Reading."},
			{"type":"tool_use","id":"c1","name":"read_file","input":{"path":"a.txt"}},
			{"type":"tool_use","id":"c2","name":"read_file","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"hello"}]},
			{"type":"tool_result","tool_use_id":"c2","content":[
				{"type":"text","text":"an image"},
				{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}]},
			{"type":"text","text":"also this"},
			{"type":"text","text":"and another","cache_control":{"type":"ephemeral"}}]},
		{"role":"assistant","content":[
			{"type":"redacted_thinking","data":"abc"},
			{"type":"tool_use","id":"functions_noargs_0","name":"noargs","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"functions_noargs_0","content":[{"type":"text","text":"failed"}],"is_error":true},
			{"type":"text","text":"look"},
			{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"AQI="}},
			{"type":"text","text":"[1 bytes of text/csv omitted: this provider accepts only JPEG, PNG, GIF and WebP images and PDF documents]","cache_control":{"type":"ephemeral"}}]}
	]`)
	if n := strings.Count(string(s.Raw(0)), `"cache_control"`); n != 3 {
		t.Errorf("%d cache_control markers, want 3", n)
	}

	h := s.Header(0)
	for k, want := range map[string]string{
		"X-Api-Key":         "sk-ant-test",
		"Anthropic-Version": "2023-06-01",
		"Content-Type":      "application/json",
		"Accept":            "text/event-stream",
		"Anthropic-Beta":    "x",
	} {
		if h.Get(k) != want {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), want)
		}
	}
	if h.Get("Authorization") != "" {
		t.Errorf("Authorization sent: %q", h.Get("Authorization"))
	}
}

func TestRequestOptions(t *testing.T) {
	temp := 0.5
	req := &llm.Request{Temperature: &temp, Messages: simpleRequest().Messages}
	s := newServer(t, reply{Body: stopBody}, reply{Body: stopBody}, reply{Body: stopBody})

	// max_tokens is required: the default fills in.
	if r := run(t, s.client(Config{Model: "m1"}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	if got["model"] != "m1" || got["max_tokens"] != float64(DefaultMaxTokens) || got["temperature"] != 0.5 {
		t.Errorf("model %v max_tokens %v temperature %v", got["model"], got["max_tokens"], got["temperature"])
	}
	if _, ok := got["system"]; ok {
		t.Errorf("empty system prompt sent")
	}
	if s.Header(0).Get("X-Api-Key") != "" {
		t.Errorf("x-api-key sent without a key")
	}
	// The user message is the only one: it gets the one breakpoint.
	if want := decodeJSON(t, `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]`); !reflect.DeepEqual(got["messages"], want) {
		t.Errorf("messages = %s", mustJSON(t, got["messages"]))
	}

	// Thinking: the budget is sent, temperature is not, and max_tokens
	// rises above the budget.
	if r := run(t, s.client(Config{ThinkingBudget: 10000}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got = s.Body(t, 1)
	if !reflect.DeepEqual(got["thinking"], decodeJSON(t, `{"type":"enabled","budget_tokens":10000}`)) {
		t.Errorf("thinking = %v", got["thinking"])
	}
	if _, ok := got["temperature"]; ok || got["max_tokens"] != float64(10000+DefaultMaxTokens) {
		t.Errorf("temperature %v max_tokens %v", got["temperature"], got["max_tokens"])
	}
	req.MaxOutputTokens = 20000
	if r := run(t, s.client(Config{ThinkingBudget: 10000}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := s.Body(t, 2); got["max_tokens"] != 20000.0 {
		t.Errorf("max_tokens %v", got["max_tokens"])
	}
}

// Whatever the history, the messages alternate, are
// never empty, keep tool results first, and carry at most four cache
// breakpoints with the system prompt's.
func TestMessagesInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	part := func(role llm.Role) llm.Part {
		switch rng.IntN(7) {
		case 0:
			return llm.Part{Text: "t"}
		case 1:
			return llm.Part{}
		case 2:
			return llm.Part{Text: "th", Thought: true, Signature: []string{"", "s"}[rng.IntN(2)]}
		case 3:
			return llm.Part{Media: &llm.Media{MIMEType: "image/png", Data: []byte{1}}}
		case 4:
			if role == llm.RoleModel {
				return llm.Part{Call: &llm.FunctionCall{ID: "c", Name: "f", Args: "{}"}}
			}
		}
		return llm.Part{Response: &llm.FunctionResponse{ID: "c", Name: "f", Output: "o"}}
	}
	for n := 0; n < 500; n++ {
		var h []llm.Message
		for range rng.IntN(8) {
			m := llm.Message{Role: []llm.Role{llm.RoleUser, llm.RoleModel}[rng.IntN(2)]}
			for range rng.IntN(4) {
				m.Parts = append(m.Parts, part(m.Role))
			}
			h = append(h, m)
		}
		msgs, err := convertMessages(h)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(msgs)
		if c := strings.Count(string(raw), "cache_control"); c > cachedUserTurns {
			t.Fatalf("%d breakpoints in %s", c, raw)
		}
		for i, m := range msgs {
			if len(m.Content) == 0 {
				t.Fatalf("empty message %d in %s", i, raw)
			}
			if i > 0 && msgs[i-1].Role == m.Role {
				t.Fatalf("two %s messages in a row in %s", m.Role, raw)
			}
			seenOther := false
			for _, b := range m.Content {
				_, isResult := b.(*toolResultBlock)
				if isResult && seenOther {
					t.Fatalf("tool_result after other content in %s", raw)
				}
				seenOther = seenOther || !isResult
			}
		}
	}
}

func TestToolInput(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`:        `{"a":1}`,
		`  {"a":[1, 2]} `: `{"a":[1,2]}`,
		``:                `{}`,
		`{"a":`:           `{}`,
		`[1]`:             `{}`,
		`"s"`:             `{}`,
		`null`:            `{}`,
	} {
		if got := string(toolInput(in)); got != want {
			t.Errorf("toolInput(%q) = %s, want %s", in, got, want)
		}
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
		"":                         "https://api.anthropic.com/v1/messages",
		"http://h":                 "http://h/v1/messages",
		"http://h/":                "http://h/v1/messages",
		"https://proxy.example/a/": "https://proxy.example/a/v1/messages",
	} {
		if got := New(Config{BaseURL: in}).url; got != want {
			t.Errorf("BaseURL %q: url = %q, want %q", in, got, want)
		}
	}
}
