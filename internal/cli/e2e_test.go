package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// runPly runs the command in-process against srv with a fresh workspace
// and returns stdout, stderr and the exit code.
type result struct {
	stdout, stderr string
	code           int
}

func runPly(t *testing.T, dir string, srv *fp.Server, stdin string, args ...string) result {
	t.Helper()
	return runPlyIn(t, dir, filepath.Join(t.TempDir(), "home"), srv, stdin, args...)
}

// runPlyHome is runPly with ply's home given, for runs that share it.
func runPlyHome(t *testing.T, dir, home string, srv *fp.Server, args ...string) result {
	t.Helper()
	return runPlyIn(t, dir, home, srv, "", args...)
}

func runPlyIn(t *testing.T, dir, home string, srv *fp.Server, stdin string, args ...string) result {
	t.Helper()
	env := map[string]string{
		"OPENAI_API_KEY":        "test-key",
		"OPENAI_MODEL":          "test-model",
		"PLY_HOME":              home,
		"PLY_RETRY_DELAY_SCALE": "0.001",
	}
	if srv != nil {
		env["OPENAI_BASE_URL"] = srv.URL
	}
	var out, errb bytes.Buffer
	sio := IO{
		Stdin:      strings.NewReader(stdin),
		StdinIsTTY: stdin == "",
		Stdout:     &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Cwd:    dir,
	}
	code := Main(context.Background(), args, sio)
	return result{out.String(), errb.String(), code}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestReadEditTextSession(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.py")
	if err := os.WriteFile(file, []byte("def greet(name):\n    return \"Hello, \" + name + \"!\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func() []fp.Turn {
		return []fp.Turn{
			{fp.ToolCall("call_1", "read_file", mustJSON(map[string]any{"file_path": file})), fp.Usage(100, 10)},
			{fp.ToolCall("call_2", "edit", mustJSON(map[string]any{
				"file_path": file, "old_string": `    return "Hello, " + name + "!"`, "new_string": `    return f"Hello, {name}!"`})), fp.Usage(120, 20)},
			{fp.Text("Done."), fp.Usage(130, 1)},
		}
	}

	t.Run("text", func(t *testing.T) {
		srv := fp.New(t, script()...)
		r := runPly(t, dir, srv, "", "-y", "-p", "use an f-string")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if r.stdout != "Done.\n" {
			t.Fatalf("stdout = %q, want the final text", r.stdout)
		}
		got, _ := os.ReadFile(file)
		if !strings.Contains(string(got), `return f"Hello, {name}!"`) {
			t.Fatalf("file not edited:\n%s", got)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		// The second request carries the read result paired with call_1.
		msgs := reqs[1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != "tool" || last.ToolCallID != "call_1" || !strings.Contains(last.Text(), "def greet") {
			t.Fatalf("second request's last message = %+v", last)
		}
		if err := srv.CheckPairing(); err != nil {
			t.Fatal(err)
		}
		if reqs[0].Body["stream"] != true {
			t.Fatalf("request not streaming: %v", reqs[0].Body)
		}
	})

	t.Run("stream-json", func(t *testing.T) {
		if err := os.WriteFile(file, []byte("def greet(name):\n    return \"Hello, \" + name + \"!\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := fp.New(t, script()...)
		r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "-p", "use an f-string")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		var kinds []string
		var sessionID string
		sc := bufio.NewScanner(strings.NewReader(r.stdout))
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("line is not JSON: %q", sc.Text())
			}
			for _, k := range []string{"uuid", "session_id"} {
				if _, ok := m[k]; !ok {
					t.Fatalf("message without %s: %s", k, sc.Text())
				}
			}
			if sessionID == "" {
				sessionID, _ = m["session_id"].(string)
			} else if m["session_id"] != sessionID {
				t.Fatalf("session id changed: %s", sc.Text())
			}
			k := m["type"].(string)
			switch k {
			case "assistant", "user":
				if _, ok := m["parent_tool_use_id"]; !ok {
					t.Fatalf("no parent_tool_use_id: %s", sc.Text())
				}
				msg := m["message"].(map[string]any)
				blocks := msg["content"].([]any)
				k += "(" + blocks[0].(map[string]any)["type"].(string) + ")"
				if strings.HasPrefix(k, "assistant(tool_use") && msg["stop_reason"] != "tool_use" {
					t.Fatalf("tool_use message without stop_reason tool_use: %s", sc.Text())
				}
			case "system", "result":
				k += "/" + m["subtype"].(string)
			}
			kinds = append(kinds, k)
			if m["type"] == "result" {
				if m["is_error"] != false || m["num_turns"].(float64) != 3 || m["result"] != "Done." {
					t.Fatalf("result = %s", sc.Text())
				}
				if u := m["usage"].(map[string]any); u["input_tokens"].(float64) != 350 {
					t.Fatalf("usage not summed: %v", u)
				}
			}
		}
		want := "system/init assistant(tool_use) user(tool_result) assistant(tool_use) user(tool_result) assistant(text) result/success"
		if got := strings.Join(kinds, " "); got != want {
			t.Fatalf("messages:\n got %s\nwant %s", got, want)
		}
	})

	t.Run("json", func(t *testing.T) {
		if err := os.WriteFile(file, []byte("def greet(name):\n    return \"Hello, \" + name + \"!\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := fp.New(t, script()...)
		r := runPly(t, dir, srv, "", "-y", "-o", "json", "-p", "use an f-string")
		var arr []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &arr); err != nil || r.code != 0 {
			t.Fatalf("exit %d, stdout is not one JSON array: %v\n%s", r.code, err, r.stdout)
		}
		if arr[0]["type"] != "system" || arr[len(arr)-1]["type"] != "result" || len(arr) != 7 {
			t.Fatalf("json output: %s", r.stdout)
		}
	})
}

func TestThreeCallsRunAndReturnInCallOrder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(dir, n+".txt"), []byte("content of "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("c_a", "read_file", `{"file_path":"a.txt"}`),
			fp.ToolCall("c_b", "read_file", `{"file_path":"b.txt"}`),
			fp.ToolCall("c_c", "read_file", `{"file_path":"c.txt"}`),
		},
		fp.Turn{fp.Text("read all three")},
	)
	r := runPly(t, dir, srv, "", "-y", "-p", "read them")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[1].Messages
	tail := msgs[len(msgs)-3:]
	for i, n := range []string{"a", "b", "c"} {
		if tail[i].Role != "tool" || tail[i].ToolCallID != "c_"+n || !strings.Contains(tail[i].Text(), "content of "+n) {
			t.Fatalf("result %d = %+v", i, tail[i])
		}
	}
}

func TestBadCallsReachTheModelAndTheSessionGoesOn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badJSON := `{"file_path": "f.txt"`
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("h1", "read_fiel", `{"file_path":"f.txt"}`)},
		// Malformed JSON is retried as an invalid stream (4 times by
		// default), then handed to the scheduler, which tells the model.
		fp.Turn{fp.ToolCall("j1", "read_file", badJSON)},
		fp.Turn{fp.ToolCall("j1", "read_file", badJSON)},
		fp.Turn{fp.ToolCall("j1", "read_file", badJSON)},
		fp.Turn{fp.ToolCall("j1", "read_file", badJSON)},
		fp.Turn{fp.ToolCall("j1", "read_file", badJSON)},
		fp.Turn{fp.ToolCall("t1", "read_file", `{"file_path": 42}`)},
		fp.Turn{fp.Text("recovered")},
	)
	r := runPly(t, dir, srv, "", "-y", "-p", "go")
	if r.code != 0 || r.stdout != "recovered\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	toolResult := func(req fp.Request, id string) string {
		for _, m := range req.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				return m.Text()
			}
		}
		t.Fatalf("no result for %s", id)
		return ""
	}
	if s := toolResult(reqs[1], "h1"); !strings.Contains(s, "read_fiel") || !strings.Contains(s, "read_file") {
		t.Errorf("unknown tool result should name it and suggest read_file: %q", s)
	}
	if s := toolResult(reqs[6], "j1"); !strings.Contains(strings.ToLower(s), "json") {
		t.Errorf("malformed JSON result should say so: %q", s)
	}
	if s := toolResult(reqs[7], "t1"); !strings.Contains(s, "file_path") || !strings.Contains(s, "string") {
		t.Errorf("wrong type result should name the field and the type: %q", s)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Fatal(err)
	}
}

func TestFailuresEndWithOneLineError(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		srv   func(t *testing.T) *fp.Server
		base  string
		code  int
		match string
	}{
		{name: "unreachable", base: "http://127.0.0.1:1", code: 1, match: "connect"},
		{name: "401", srv: func(t *testing.T) *fp.Server {
			return fp.New(t, fp.Turn{fp.Status(401, `{"error":{"message":"Incorrect API key provided"}}`, nil)})
		}, code: 41, match: "Incorrect API key"},
		{name: "malformed stream", srv: func(t *testing.T) *fp.Server {
			var turns []fp.Turn
			for i := 0; i < 5; i++ {
				turns = append(turns, fp.Turn{fp.NotJSONChunk()})
			}
			return fp.New(t, turns...)
		}, code: 1, match: "invalid response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r result
			if tc.srv != nil {
				r = runPly(t, dir, tc.srv(t), "", "-y", "-p", "hi")
			} else {
				r = runPly(t, dir, nil, "", "-y", "--openai-base-url", tc.base, "-p", "hi")
			}
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "ply: ") || !strings.Contains(last, tc.match) {
				t.Fatalf("last stderr line %q should be a ply error mentioning %q", last, tc.match)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Fatalf("stack trace on stderr:\n%s", r.stderr)
			}
		})
	}
}

func TestBadInputExitCodes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args  []string
		env   map[string]string
		code  int
		match string
	}{
		{args: []string{"--no-such-flag"}, code: 42, match: "unknown flag --no-such-flag"},
		{args: []string{"-o", "yaml", "-p", "x"}, code: 42, match: "output format"},
		{args: []string{"--max-session-turns", "many", "-p", "x"}, code: 42, match: "whole number"},
		{args: []string{"-y"}, code: 42, match: "no prompt"},
		{args: []string{"-p", "x"}, env: map[string]string{"OPENAI_API_KEY": ""}, code: 41, match: "OPENAI_API_KEY"},
		{args: []string{"-p", "x"}, env: map[string]string{"OPENAI_MODEL": ""}, code: 42, match: "OPENAI_MODEL"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "PLY_HOME": t.TempDir()}
			for k, v := range tc.env {
				env[k] = v
			}
			var out, errb bytes.Buffer
			code := Main(context.Background(), tc.args, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
				Getenv: func(k string) string { return env[k] }, Cwd: dir})
			if code != tc.code || !strings.Contains(errb.String(), tc.match) || strings.Count(errb.String(), "\n") != 1 {
				t.Fatalf("exit %d stderr %q; want %d and one line with %q", code, errb.String(), tc.code, tc.match)
			}
		})
	}
}

func TestStdinIsAppendedToThePrompt(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Text("reviewed")})
	r := runPly(t, t.TempDir(), srv, "diff --git a/x b/x\n+added\n", "-y", "-p", "review this")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages
	user := msgs[len(msgs)-1].Text()
	if !strings.HasPrefix(user, "review this\n\n") || !strings.Contains(user, "+added") {
		t.Fatalf("user message = %q", user)
	}
}

func TestCapsEndTheRunAtTheLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loop := func(n int) []fp.Turn {
		var ts []fp.Turn
		for i := 0; i < n; i++ {
			ts = append(ts, fp.Turn{fp.ToolCall("c"+string(rune('a'+i)), "list_directory", `{"path":"."}`)})
		}
		return ts
	}
	t.Run("session turns", func(t *testing.T) {
		srv := fp.New(t, loop(2)...)
		r := runPly(t, dir, srv, "", "-y", "-o", "json", "--max-session-turns", "2", "-p", "go")
		if r.code != 53 || !strings.Contains(r.stdout, `"subtype":"error_max_turns"`) || len(srv.Requests()) != 2 {
			t.Fatalf("exit %d, %d requests, out %s", r.code, len(srv.Requests()), r.stdout)
		}
	})
	t.Run("tool calls", func(t *testing.T) {
		srv := fp.New(t, loop(3)...)
		r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "--max-tool-calls", "2", "-p", "go")
		if r.code != 55 || !strings.Contains(r.stdout, `"subtype":"error_max_tool_calls"`) || strings.Count(r.stdout, `"tool_result"`) != 2 {
			t.Fatalf("exit %d, out %s", r.code, r.stdout)
		}
	})
}

func TestPartialMessages(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Thought("thinking it over"), fp.Text("Hello, "), fp.Text("world.")})
	r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "stream-json", "--include-partial-messages", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var events, text []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] != "stream_event" {
			continue
		}
		ev := m["event"].(map[string]any)
		events = append(events, ev["type"].(string))
		if d, ok := ev["delta"].(map[string]any); ok && d["type"] == "text_delta" {
			text = append(text, d["text"].(string))
		}
	}
	if events[0] != "message_start" || events[len(events)-1] != "message_stop" || strings.Join(text, "") != "Hello, world." {
		t.Fatalf("stream events %v, text %q", events, text)
	}
	// Whole messages still follow.
	if !strings.Contains(r.stdout, `"type":"assistant"`) || !strings.Contains(r.stdout, `"type":"result"`) {
		t.Fatal("whole messages missing")
	}
}
