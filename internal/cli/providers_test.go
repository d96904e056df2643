package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// call is one scripted tool call.
type call struct{ id, name, args string }

// wireTurn is one scripted reply: text, or calls.
type wireTurn struct {
	text  string
	calls []call
}

// renderers write a scripted reply in each provider's SSE wire format, the
// way the real services frame it.
var renderers = map[string]func(w io.Writer, t wireTurn){
	"anthropic": func(w io.Writer, t wireTurn) {
		ev := func(typ string, v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "content": []any{}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
		idx := 0
		if t.text != "" {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": t.text}})
			ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		for _, c := range t.calls {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": map[string]any{}}})
			half := len(c.args) / 2
			for _, frag := range []string{"", c.args[:half], c.args[half:]} {
				ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": frag}})
			}
			ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		stop := "end_turn"
		if len(t.calls) > 0 {
			stop = "tool_use"
		}
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	},
	"gemini": func(w io.Writer, t wireTurn) {
		var parts []any
		if t.text != "" {
			parts = append(parts, map[string]any{"text": t.text})
		}
		for _, c := range t.calls {
			var args any
			_ = json.Unmarshal([]byte(c.args), &args)
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.name, "args": args}})
		}
		b, _ := json.Marshal(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		})
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
	},
	"openai-responses": func(w io.Writer, t wireTurn) {
		seq := 0
		ev := func(v map[string]any) {
			v["sequence_number"] = seq
			seq++
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		}
		ev(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1", "status": "in_progress"}})
		out := 0
		if t.text != "" {
			ev(map[string]any{"type": "response.output_item.added", "output_index": out, "item": map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "content": []any{}}})
			ev(map[string]any{"type": "response.output_text.delta", "output_index": out, "content_index": 0, "item_id": "msg_1", "delta": t.text})
			ev(map[string]any{"type": "response.output_item.done", "output_index": out, "item": map[string]any{"type": "message", "id": "msg_1", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": t.text}}}})
			out++
		}
		for _, c := range t.calls {
			item := map[string]any{"type": "function_call", "id": "fc_" + c.id, "call_id": c.id, "name": c.name, "arguments": ""}
			ev(map[string]any{"type": "response.output_item.added", "output_index": out, "item": item})
			ev(map[string]any{"type": "response.function_call_arguments.delta", "output_index": out, "item_id": "fc_" + c.id, "delta": c.args})
			done := map[string]any{"type": "function_call", "id": "fc_" + c.id, "call_id": c.id, "name": c.name, "arguments": c.args, "status": "completed"}
			ev(map[string]any{"type": "response.output_item.done", "output_index": out, "item": done})
			out++
		}
		ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_1", "status": "completed",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
	},
}

// wireServer answers the n-th request with turns[n] and records bodies.
type wireServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func newWireServer(t *testing.T, format string, turns []wireTurn) *wireServer {
	s := &wireServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		if n >= len(turns) {
			http.Error(w, `{"error":{"message":"unscripted request"}}`, 500)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		renderers[format](w, turns[n])
	}))
	t.Cleanup(s.Close)
	return s
}

// TestSameSessionOnEveryWireFormat runs read → edit → text and a 3-call
// parallel round against a fake server of each native wire format.
func TestSameSessionOnEveryWireFormat(t *testing.T) {
	envs := map[string][2]string{
		"anthropic":        {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
		"gemini":           {"GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"},
		"openai-responses": {"OPENAI_API_KEY", "OPENAI_BASE_URL"},
	}
	for format, names := range envs {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "hello.txt")
			for _, n := range []string{"a", "b", "c"} {
				if err := os.WriteFile(filepath.Join(dir, n), []byte("file "+n+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(file, []byte("hello world\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := newWireServer(t, format, []wireTurn{
				{calls: []call{{"r1", "read_file", `{"file_path":"hello.txt"}`}}},
				{text: "Editing.", calls: []call{{"e1", "edit", `{"file_path":"hello.txt","old_string":"world","new_string":"ply"}`}}},
				{calls: []call{{"p1", "read_file", `{"file_path":"a"}`}, {"p2", "read_file", `{"file_path":"b"}`}, {"p3", "read_file", `{"file_path":"c"}`}}},
				{text: "All done."},
			})
			env := map[string]string{names[0]: "k", names[1]: srv.URL, "PLY_HOME": t.TempDir(), "PLY_RETRY_DELAY_SCALE": "0.001"}
			var out, errb strings.Builder
			code := Main(t.Context(), []string{"--auth-type", format, "-m", "test-model", "-y", "-p", "go"},
				IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Cwd: dir})
			if code != 0 || out.String() != "All done.\n" {
				t.Fatalf("exit %d stdout %q stderr:\n%s", code, out.String(), errb.String())
			}
			if b, _ := os.ReadFile(file); string(b) != "hello ply\n" {
				t.Fatalf("file = %q", b)
			}
			if len(srv.bodies) != 4 {
				t.Fatalf("%d requests", len(srv.bodies))
			}
			// The last request carries the three results in call order,
			// each paired with its call.
			last, _ := json.Marshal(srv.bodies[3])
			s := string(last)
			ia, ib, ic := strings.Index(s, "file a"), strings.Index(s, "file b"), strings.Index(s, "file c")
			if ia < 0 || ib < ia || ic < ib {
				t.Fatalf("results not in call order in the last request:\n%s", s)
			}
			if format != "gemini" {
				for _, id := range []string{"r1", "e1", "p1", "p2", "p3"} {
					if strings.Count(s, `"`+id+`"`) < 2 {
						t.Fatalf("call %s is not paired with its result:\n%s", id, s)
					}
				}
			}
		})
	}
}
