package gemini

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

func TestRequestBody(t *testing.T) {
	temp := 0.25
	png := []byte{0x89, 'P', 'N', 'G'}
	req := &llm.Request{
		Model:           "models/gemini-3-pro-preview",
		System:          "be brief",
		MaxOutputTokens: 512,
		Temperature:     &temp,
		Tools: []llm.ToolDecl{
			{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "noargs", Description: "No parameters", Parameters: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "read a.txt and b.png"}}},
			// As the chat layer records a Gemini reply: the thought with
			// its signature, the call with its own on the call.
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Text: "pondering", Thought: true, Signature: "sigT"},
				{Text: "Reading."},
				{Call: &llm.FunctionCall{ID: "read_file-1-a", Name: "read_file", Args: `{"path": "a.txt"}`, Signature: "sigC1"}},
				{Call: &llm.FunctionCall{ID: "read_file-1-b", Name: "read_file", Args: `{"path": "b.pn`}},
			}},
			// Responses out of order, one without a name: they are sent
			// in call order, named after their calls.
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Text: "also this"},
				{Response: &llm.FunctionResponse{ID: "read_file-1-b", Output: "an image", Media: []llm.Media{{MIMEType: "image/png", Data: png}}}},
				{Response: &llm.FunctionResponse{ID: "read_file-1-a", Name: "read_file", Output: "hello"}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "and another"}}},
			// A signature that came on a text part is recorded as an
			// empty thought before the text; it goes back on the text.
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Thought: true, Signature: "sigX"},
				{Text: "Calling."},
				{Call: &llm.FunctionCall{ID: "c3", Name: "noargs", Args: `{}`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "c3", Name: "noargs", Output: "failed", IsError: true}},
			}},
			// Nothing to send: dropped, and the user turns around it merge.
			{Role: llm.RoleModel, Parts: []llm.Part{{Thought: true, Signature: "dangling"}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "look"}, {Media: &llm.Media{MIMEType: "application/pdf", Data: []byte{1, 2}}}}},
		},
	}
	s := newServer(t, reply{Body: stopBody})
	c := s.client(Config{APIKey: "gk-test", IncludeThoughts: true, Headers: map[string]string{"X-Extra": "1"}})
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
	check("systemInstruction", `{"parts":[{"text":"be brief"}]}`)
	check("generationConfig", `{"maxOutputTokens":512,"temperature":0.25,"thinkingConfig":{"includeThoughts":true}}`)
	check("tools", `[{"functionDeclarations":[
		{"name":"read_file","description":"Read a file","parameters":{"type":"OBJECT","properties":{"path":{"type":"STRING"}},"required":["path"]}},
		{"name":"noargs","description":"No parameters"}]}]`)
	check("contents", `[
		{"role":"user","parts":[{"text":"read a.txt and b.png"}]},
		{"role":"model","parts":[
			{"text":"pondering","thought":true,"thoughtSignature":"sigT"},
			{"text":"Reading."},
			{"functionCall":{"id":"read_file-1-a","name":"read_file","args":{"path":"a.txt"}},"thoughtSignature":"sigC1"},
			{"functionCall":{"id":"read_file-1-b","name":"read_file","args":{}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"id":"read_file-1-a","name":"read_file","response":{"output":"hello"}}},
			{"functionResponse":{"id":"read_file-1-b","name":"read_file","response":{"output":"an image"}}},
			{"inlineData":{"mimeType":"image/png","data":"iVBORw=="}},
			{"text":"also this"},
			{"text":"and another"}]},
		{"role":"model","parts":[
			{"text":"Calling.","thoughtSignature":"sigX"},
			{"functionCall":{"id":"c3","name":"noargs","args":{}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"id":"c3","name":"noargs","response":{"error":"failed"}}},
			{"text":"look"},
			{"inlineData":{"mimeType":"application/pdf","data":"AQI="}}]}
	]`)
	if want := "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"; s.RequestURL(0) != want {
		t.Errorf("url %s, want %s", s.RequestURL(0), want)
	}
	h := s.Header(0)
	for k, want := range map[string]string{
		"X-Goog-Api-Key": "gk-test",
		"Content-Type":   "application/json",
		"X-Extra":        "1",
	} {
		if h.Get(k) != want {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), want)
		}
	}
}

func TestRequestDefaults(t *testing.T) {
	s := newServer(t, reply{Body: stopBody})
	if r := run(t, s.client(Config{}), simpleRequest()); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	for _, key := range []string{"systemInstruction", "generationConfig", "tools"} {
		if _, ok := got[key]; ok {
			t.Errorf("%s sent: %v", key, got[key])
		}
	}
	if s.Header(0).Get("X-Goog-Api-Key") != "" {
		t.Errorf("key header sent without a key")
	}
	if want := "/v1beta/models/test-model:streamGenerateContent?alt=sse"; s.RequestURL(0) != want {
		t.Errorf("url %s", s.RequestURL(0))
	}
}

func TestConvertSchema(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no schema", ``, `null`},
		{"not an object", `[1]`, `null`},
		{"not JSON", `{`, `null`},
		{"no properties", `{"type":"object"}`, `null`},
		{
			"unsupported keywords stripped recursively",
			`{"$schema":"x","$id":"y","type":"object","additionalProperties":false,"properties":{
				"opts":{"type":"object","additionalProperties":{"type":"string"},"patternProperties":{},"properties":{"k":{"type":"string","format":"uri","minLength":1}}},
				"n":{"type":"integer","exclusiveMinimum":0,"minimum":1,"format":"int64","multipleOf":2}},
				"required":["n","ghost"]}`,
			`{"type":"OBJECT","properties":{
				"opts":{"type":"OBJECT","properties":{"k":{"type":"STRING","minLength":1}}},
				"n":{"type":"INTEGER","minimum":1,"format":"int64"}},
				"required":["n"]}`,
		},
		{
			"type lists, const, oneOf, enums",
			`{"type":"object","properties":{
				"a":{"type":["string","null"],"description":"maybe"},
				"b":{"type":["string","integer"]},
				"c":{"const":"fixed"},
				"d":{"oneOf":[{"type":"string"},{"type":"number"}]},
				"e":{"type":"string","enum":["x","y"]},
				"f":{"type":"integer","enum":[1,2]},
				"g":{"type":"array","items":[{"type":"boolean"}],"examples":["t"]}}}`,
			`{"type":"OBJECT","properties":{
				"a":{"type":"STRING","nullable":true,"description":"maybe"},
				"b":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]},
				"c":{"enum":["fixed"]},
				"d":{"anyOf":[{"type":"STRING"},{"type":"NUMBER"}]},
				"e":{"type":"STRING","enum":["x","y"]},
				"f":{"type":"INTEGER"},
				"g":{"type":"ARRAY","items":{"type":"BOOLEAN"},"example":"t"}}}`,
		},
		{
			"local refs and allOf are inlined",
			`{"type":"object","$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
				"properties":{"p":{"$ref":"#/$defs/P","description":"a point"},"q":{"allOf":[{"$ref":"#/$defs/P"},{"properties":{"y":{"type":"number"}}}]},"r":{"$ref":"#/nowhere"}}}`,
			`{"type":"OBJECT","properties":{
				"p":{"type":"OBJECT","properties":{"x":{"type":"NUMBER"}},"required":["x"],"description":"a point"},
				"q":{"type":"OBJECT","properties":{"x":{"type":"NUMBER"},"y":{"type":"NUMBER"}},"required":["x"]},
				"r":{}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convertSchema(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var g any = got
			if got == nil {
				g = nil
			}
			if w := decodeJSON(t, tt.want); !reflect.DeepEqual(decodeJSON(t, mustJSON(t, g)), w) {
				t.Errorf("got  %s\nwant %s", mustJSON(t, g), tt.want)
			}
		})
	}
}

// A recursive schema ends at the depth limit instead of looping.
func TestConvertSchemaRecursive(t *testing.T) {
	got, err := convertSchema(json.RawMessage(`{"type":"object","properties":{"node":{"$ref":"#"}}}`))
	if err != nil || got == nil {
		t.Fatalf("%v %v", got, err)
	}
	if len(mustJSON(t, got)) > 1<<16 {
		t.Fatalf("schema of %d bytes", len(mustJSON(t, got)))
	}
}

func TestCallArgs(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`: `{"a":1}`,
		``:         `{}`,
		`{"a":`:    `{}`,
		`[1]`:      `{}`,
		`null`:     `{}`,
	} {
		if got := string(callArgs(in)); got != want {
			t.Errorf("callArgs(%q) = %s, want %s", in, got, want)
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

func TestEndpoint(t *testing.T) {
	for _, tt := range []struct{ base, model, want string }{
		{"", "gemini-2.5-pro", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"http://h/", "models/gemini-2.5-flash", "http://h/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"},
		{"http://h/proxy", "a/b?c", "http://h/proxy/v1beta/models/a%2Fb%3Fc:streamGenerateContent?alt=sse"},
	} {
		if got := New(Config{BaseURL: tt.base}).endpoint(tt.model); got != tt.want {
			t.Errorf("%q %q: %s, want %s", tt.base, tt.model, got, tt.want)
		}
	}
}

// References that fan out are cut off by the node budget, not followed
// into an exponential tree.
func TestConvertSchemaFanOut(t *testing.T) {
	start := time.Now()
	got, _ := convertSchema(json.RawMessage(`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#"},{"$ref":"#"},{"$ref":"#"}]}}}`))
	if got == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}
