package fakeprovider_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/openai"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type result struct {
	text, thought string
	calls         []llm.FunctionCall
	finish        []llm.FinishReason
	usage         *llm.Usage
	chunks        int
	err           error
}

func stream(t *testing.T, c *openai.Client, req *llm.Request) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var r result
	for ch, err := range c.Stream(ctx, req) {
		if err != nil {
			r.err = err
			continue
		}
		r.chunks++
		r.text += ch.Text
		r.thought += ch.Thought
		r.calls = append(r.calls, ch.Calls...)
		if ch.FinishReason != "" {
			r.finish = append(r.finish, ch.FinishReason)
		}
		if ch.Usage != nil {
			r.usage = ch.Usage
		}
	}
	return r
}

func client(s *fakeprovider.Server, cfg openai.Config) *openai.Client {
	cfg.BaseURL = s.URL + "/v1"
	cfg.Model = "fake-model"
	return openai.New(cfg)
}

func userText(s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: s}}}
}

func TestTextAndToolTurns(t *testing.T) {
	args := `{"path":"naïve/ファイル.txt","n":12345}`
	s := fakeprovider.New(t,
		fakeprovider.Turn{
			fakeprovider.Thought("Need the file."),
			fakeprovider.Text("Reading "),
			fakeprovider.Text("it."),
			fakeprovider.ToolCall("call_1", "read_file", args),
			fakeprovider.ToolCall("call_2", "glob", `{}`),
			fakeprovider.Usage(100, 20),
		},
		fakeprovider.Turn{fakeprovider.Text("Done."), fakeprovider.Finish("stop"), fakeprovider.Usage(150, 5)},
	)
	c := client(s, openai.Config{})
	hist := []llm.Message{userText("read it")}
	r := stream(t, c, &llm.Request{System: "sys", Messages: hist})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.thought != "Need the file." || r.text != "Reading it." {
		t.Errorf("thought %q text %q", r.thought, r.text)
	}
	want := []llm.FunctionCall{{ID: "call_1", Name: "read_file", Args: args}, {ID: "call_2", Name: "glob", Args: "{}"}}
	if !reflect.DeepEqual(r.calls, want) {
		t.Errorf("calls %+v", r.calls)
	}
	if !reflect.DeepEqual(r.finish, []llm.FinishReason{llm.FinishToolCalls}) {
		t.Errorf("finish %v", r.finish)
	}
	if r.usage == nil || *r.usage != (llm.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}) {
		t.Errorf("usage %+v", r.usage)
	}

	hist = append(hist,
		llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: r.text}, {Call: &r.calls[0]}, {Call: &r.calls[1]}}},
		llm.Message{Role: llm.RoleUser, Parts: []llm.Part{
			{Response: &llm.FunctionResponse{ID: "call_1", Name: "read_file", Output: "content"}},
			{Response: &llm.FunctionResponse{ID: "call_2", Name: "glob", Output: "a\nb"}},
		}})
	r = stream(t, c, &llm.Request{System: "sys", Messages: hist})
	if r.err != nil || r.text != "Done." || r.finish[0] != llm.FinishStop {
		t.Fatalf("%+v", r)
	}

	reqs := s.Requests()
	if len(reqs) != 2 || s.Pending() != 0 {
		t.Fatalf("%d requests, %d pending", len(reqs), s.Pending())
	}
	if reqs[1].Model != "fake-model" || reqs[1].Path != "/v1/chat/completions" || reqs[1].Body["stream"] != true {
		t.Errorf("request: %s %s %v", reqs[1].Model, reqs[1].Path, reqs[1].Body["stream"])
	}
	m := reqs[1].Messages
	if len(m) != 5 || m[0].Role != "system" || m[1].Text() != "read it" || m[2].Role != "assistant" ||
		len(m[2].ToolCalls) != 2 || m[2].ToolCalls[0].Function.Arguments != args ||
		m[3].ToolCallID != "call_1" || m[4].ToolCallID != "call_2" || m[4].Text() != "a\nb" {
		t.Errorf("messages: %+v", m)
	}
	if err := s.CheckPairing(); err != nil {
		t.Errorf("pairing: %v", err)
	}
}

func TestWireFormat(t *testing.T) {
	s := fakeprovider.New(t, fakeprovider.Turn{fakeprovider.Text("hi"), fakeprovider.ToolCall("c", "f", `{"a":1}`)})
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	const env = `{"id":"chatcmpl-fake-0","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":`
	want := "data: " + env + `[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}],"usage":null}` + "\n\n" +
		"data: " + env + `[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}],"usage":null}` + "\n\n" +
		"data: " + env + `[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]},"finish_reason":null}],"usage":null}` + "\n\n" +
		"data: " + env + `[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":null}],"usage":null}` + "\n\n" +
		"data: " + env + `[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}` + "\n\n" +
		"data: [DONE]\n\n"
	if string(b) != want {
		t.Fatalf("body:\n%s\nwant:\n%s", b, want)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name  string
		turn  fakeprovider.Turn
		cfg   openai.Config
		check func(t *testing.T, r result)
	}{
		{"reset before first byte", fakeprovider.Turn{fakeprovider.ResetBeforeFirstByte(), fakeprovider.Text("never")}, openai.Config{},
			func(t *testing.T, r result) {
				if r.err == nil || r.chunks != 0 {
					t.Fatalf("err %v chunks %d", r.err, r.chunks)
				}
				var ae *llm.APIError
				if errors.As(r.err, &ae) {
					t.Fatalf("a reset reported as an API error: %v", r.err)
				}
			}},
		{"close before first byte", fakeprovider.Turn{fakeprovider.CloseBeforeFirstByte(), fakeprovider.Text("never")}, openai.Config{},
			func(t *testing.T, r result) {
				if !errors.Is(r.err, io.EOF) || r.chunks != 0 {
					t.Fatalf("err %v chunks %d, want io.EOF before any chunk", r.err, r.chunks)
				}
			}},
		{"silence before the headers past the idle timeout", fakeprovider.Turn{fakeprovider.StallBeforeHeaders(5 * time.Second), fakeprovider.Text("a")}, openai.Config{StreamIdleTimeout: 100 * time.Millisecond},
			func(t *testing.T, r result) {
				var ne net.Error
				if !errors.As(r.err, &ne) || !ne.Timeout() || r.chunks != 0 {
					t.Fatalf("err %v chunks %d", r.err, r.chunks)
				}
			}},
		{"cut after chunks", fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.Text("b"), fakeprovider.Text("c"), fakeprovider.CutAfterChunks(2)}, openai.Config{},
			func(t *testing.T, r result) {
				if !errors.Is(r.err, io.ErrUnexpectedEOF) || r.text != "ab" {
					t.Fatalf("err %v text %q", r.err, r.text)
				}
			}},
		{"cut after the whole turn", fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.CutAfterChunks(99)}, openai.Config{},
			func(t *testing.T, r result) {
				if !errors.Is(r.err, io.ErrUnexpectedEOF) || r.text != "a" || len(r.finish) != 1 {
					t.Fatalf("err %v text %q finish %v", r.err, r.text, r.finish)
				}
			}},
		{"status with Retry-After", fakeprovider.Turn{fakeprovider.Status(429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`, map[string]string{"Retry-After": "2"})}, openai.Config{},
			func(t *testing.T, r result) {
				var ae *llm.APIError
				if !errors.As(r.err, &ae) || ae.Kind != llm.ErrRateLimit || ae.RetryAfter != 2*time.Second || ae.Message != "slow down" {
					t.Fatalf("err %#v", r.err)
				}
			}},
		{"not JSON", fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.NotJSONChunk(), fakeprovider.Text("b")}, openai.Config{},
			func(t *testing.T, r result) {
				var ise *llm.InvalidStreamError
				if !errors.As(r.err, &ise) || r.text != "a" {
					t.Fatalf("err %v text %q", r.err, r.text)
				}
			}},
		{"no finish reason", fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.NoFinishReason(), fakeprovider.Usage(1, 1)}, openai.Config{},
			func(t *testing.T, r result) {
				var ise *llm.InvalidStreamError
				if !errors.As(r.err, &ise) || !strings.Contains(ise.Reason, "finish reason") || r.text != "a" || r.usage == nil {
					t.Fatalf("err %v text %q usage %v", r.err, r.text, r.usage)
				}
			}},
		{"stall past the idle timeout", fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.Stall(5 * time.Second), fakeprovider.Text("b")}, openai.Config{StreamIdleTimeout: 100 * time.Millisecond},
			func(t *testing.T, r result) {
				var ne net.Error
				if !errors.As(r.err, &ne) || !ne.Timeout() || r.text != "a" {
					t.Fatalf("err %v text %q", r.err, r.text)
				}
			}},
		{"short stall", fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.Stall(20 * time.Millisecond), fakeprovider.Text("b")}, openai.Config{},
			func(t *testing.T, r result) {
				if r.err != nil || r.text != "ab" {
					t.Fatalf("err %v text %q", r.err, r.text)
				}
			}},
		{"explicit finish length", fakeprovider.Turn{fakeprovider.ToolCall("c", "write_file", `{"content":"hal`), fakeprovider.Finish("length")}, openai.Config{},
			func(t *testing.T, r result) {
				if r.err != nil || len(r.calls) != 1 || r.finish[0] != llm.FinishMaxTokens {
					t.Fatalf("%+v", r)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeprovider.New(t, tt.turn)
			start := time.Now()
			r := stream(t, client(s, tt.cfg), &llm.Request{Messages: []llm.Message{userText("x")}})
			tt.check(t, r)
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestUnscriptedRequest(t *testing.T) {
	s := fakeprovider.NewServer(fakeprovider.Turn{fakeprovider.Text("only one")})
	defer s.Close()
	c := client(s, openai.Config{})
	req := &llm.Request{Messages: []llm.Message{userText("x")}}
	if r := stream(t, c, req); r.err != nil {
		t.Fatal(r.err)
	}
	r := stream(t, c, req)
	var ae *llm.APIError
	if !errors.As(r.err, &ae) || ae.Status != 500 || !strings.Contains(ae.Message, "no scripted turn") {
		t.Fatalf("err %v", r.err)
	}
	if f := s.Failures(); len(f) != 1 || !strings.Contains(f[0], "request 1 has no scripted turn") {
		t.Fatalf("failures %q", f)
	}
	if got := s.Requests(); len(got) != 2 || got[1].Turn != -1 {
		t.Fatalf("requests %+v", got)
	}

	s.Append(fakeprovider.Turn{fakeprovider.Text("more")})
	if r := stream(t, c, req); r.err != nil || r.text != "more" {
		t.Fatalf("appended turn: %+v", r)
	}
}

func TestBadRequests(t *testing.T) {
	s := fakeprovider.NewServer()
	defer s.Close()
	for _, tc := range []struct{ path, body string }{
		{"/v1/completions", `{}`},
		{"/chat/completions", `not json`},
	} {
		resp, err := http.Post(s.URL+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("%s: status %d", tc.path, resp.StatusCode)
		}
	}
	if len(s.Failures()) != 2 {
		t.Fatalf("failures %q", s.Failures())
	}
}

func TestCancelDuringStall(t *testing.T) {
	s := fakeprovider.New(t, fakeprovider.Turn{fakeprovider.Text("a"), fakeprovider.Stall(time.Minute), fakeprovider.Text("b")})
	c := client(s, openai.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	start := time.Now()
	for ch, e := range c.Stream(ctx, &llm.Request{Messages: []llm.Message{userText("x")}}) {
		if ch.Text == "a" {
			cancel()
		}
		err = e
	}
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestCheckMessages(t *testing.T) {
	call := func(id, name string) fakeprovider.RecordedCall {
		var c fakeprovider.RecordedCall
		c.ID, c.Type, c.Function.Name = id, "function", name
		return c
	}
	asst := func(calls ...fakeprovider.RecordedCall) fakeprovider.Message {
		return fakeprovider.Message{Role: "assistant", ToolCalls: calls}
	}
	tool := func(id string) fakeprovider.Message {
		return fakeprovider.Message{Role: "tool", ToolCallID: id, Content: []byte(`"ok"`)}
	}
	user := fakeprovider.Message{Role: "user", Content: []byte(`"hi"`)}
	tests := []struct {
		name string
		msgs []fakeprovider.Message
		want []string
	}{
		{"paired", []fakeprovider.Message{user, asst(call("a", "f"), call("b", "g")), tool("b"), tool("a"), user}, nil},
		{"dangling call at the end", []fakeprovider.Message{user, asst(call("a", "f"))}, []string{`tool call "a" (f) has no result`}},
		{"result after a user message", []fakeprovider.Message{user, asst(call("a", "f")), user, tool("a")},
			[]string{`tool call "a" (f) has no result`, `tool result for "a" does not follow`}},
		{"result without call", []fakeprovider.Message{user, asst(call("a", "f")), tool("a"), tool("z")}, []string{`tool result for "z" has no matching call`}},
		{"duplicate result", []fakeprovider.Message{user, asst(call("a", "f")), tool("a"), tool("a")}, []string{`second tool result for "a"`}},
		{"orphan result", []fakeprovider.Message{user, tool("a")}, []string{`tool result for "a" does not follow`}},
		{"second model message wedge", []fakeprovider.Message{user, asst(call("a", "f")), asst(call("b", "f")), tool("b")}, []string{`tool call "a" (f) has no result`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fakeprovider.CheckMessages(tt.msgs)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// CheckPairing catches a client that sends a history with a dangling call.
func TestCheckPairingOnRecordedRequests(t *testing.T) {
	s := fakeprovider.New(t, fakeprovider.Turn{fakeprovider.Text("ok")})
	c := client(s, openai.Config{})
	stream(t, c, &llm.Request{Messages: []llm.Message{
		userText("x"),
		{Role: llm.RoleModel, Parts: []llm.Part{{Call: &llm.FunctionCall{ID: "c1", Name: "f", Args: "{}"}}}},
		userText("y"),
	}})
	err := s.CheckPairing()
	if err == nil || !strings.Contains(err.Error(), `request 0: message 1: tool call "c1" (f) has no result`) {
		t.Fatalf("err = %v", err)
	}
}

// A lean server answers as a full one, matching When on the messages,
// refuses what is not a JSON object, and keeps no Body.
func TestLeanServer(t *testing.T) {
	s := fakeprovider.NewServerWithHooks(fakeprovider.Hooks{Lean: true},
		fakeprovider.Turn{fakeprovider.When("second"), fakeprovider.Text("to the second")},
		fakeprovider.Turn{fakeprovider.When("first"), fakeprovider.Text("to the first")})
	defer s.Close()
	c := client(s, openai.Config{})
	if r := stream(t, c, &llm.Request{Messages: []llm.Message{userText("the first")}}); r.err != nil || r.text != "to the first" {
		t.Fatalf("first: %+v", r)
	}
	for _, body := range []string{`not json`, `[1]`, `null`, `{"messages": [}`} {
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", body, resp.StatusCode)
		}
	}
	got := s.Requests()
	if len(got) != 5 || got[0].Body != nil || got[0].Turn != 1 || got[0].Model != "fake-model" || len(got[0].Messages) != 1 {
		t.Fatalf("requests: %+v", got)
	}
}
