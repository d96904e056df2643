package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestFaults runs one scripted session per fault a real endpoint produces
// and checks the requests made, the history each request carried (every
// call answered, no two assistant messages in a row) and what the user was
// shown (each sentence once).
func TestFaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("file body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := fp.ToolCall("r1", "read_file", `{"file_path":"f.txt"}`)
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("a line of a big file\n", 3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	readBig := fp.ToolCall("r1", "read_file", `{"file_path":"big.txt"}`)
	cases := []struct {
		name     string
		turns    []fp.Turn
		requests int
		code     int
		stdout   string
		stderr   string // a substring of stderr
	}{
		{name: "reset before the first byte is replayed",
			turns:    []fp.Turn{{fp.ResetBeforeFirstByte()}, {fp.Text("fine.")}},
			requests: 2, stdout: "fine.\n"},
		{name: "cut after text is continued and shown once",
			turns: []fp.Turn{
				{fp.Text("The answer is that the quick brown fox"), fp.CutAfterChunks(1)},
				{fp.Text("quick brown fox jumps over the dog.")}},
			requests: 2, stdout: "The answer is that the quick brown fox jumps over the dog.\n"},
		{name: "cut in a tool round is replayed",
			turns:    []fp.Turn{{read, fp.CutAfterChunks(0)}, {read}, {fp.Text("read it.")}},
			requests: 3, stdout: "read it.\n"},
		{name: "429 with Retry-After",
			turns: []fp.Turn{
				{fp.Status(429, `{"error":{"message":"slow down"}}`, map[string]string{"Retry-After": "0"})},
				{fp.Text("ok.")}},
			requests: 2, stdout: "ok.\n"},
		{name: "500 is retried",
			turns:    []fp.Turn{{fp.Status(500, `{"error":{"message":"oops"}}`, nil)}, {fp.Text("ok.")}},
			requests: 2, stdout: "ok.\n"},
		{name: "context length compresses once, then retries",
			turns: []fp.Turn{
				{readBig}, // one round with a result worth cutting
				{fp.Status(400, `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, nil)},
				{fp.Text("SUMMARY of the work so far")},
				{fp.Text("after compression.")}},
			requests: 4, stdout: "after compression.\n", stderr: "compressed the conversation"},
		{name: "a chunk that is not JSON is retried",
			turns:    []fp.Turn{{fp.Text("x"), fp.NotJSONChunk()}, {fp.Text("clean.")}},
			requests: 2, stdout: "clean.\n"},
		{name: "no finish reason is retried",
			turns:    []fp.Turn{{fp.Text("partial"), fp.NoFinishReason()}, {fp.Text("whole.")}},
			requests: 2, stdout: "whole.\n"},
		{name: "a call id reused in a later turn runs under a fresh id",
			turns:    []fp.Turn{{read}, {read}, {fp.Text("done.")}},
			requests: 3, stdout: "done.\n"},
		{name: "a stall past the wall-time cap ends the run with its code, not a hang",
			turns:    []fp.Turn{{fp.Text("a"), fp.Stall(300 * time.Millisecond), fp.Text("b")}},
			requests: 1, code: 55, stderr: "wall-time limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fp.New(t, tc.turns...)
			args := []string{"-y", "-p", "go"}
			if tc.code == 55 {
				args = append(args, "--max-wall-time", "150ms")
			}
			r := runPly(t, dir, srv, "", args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if got := len(srv.Requests()); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if r.stdout != tc.stdout {
				t.Errorf("stdout %q, want %q", r.stdout, tc.stdout)
			}
			if tc.stderr != "" && !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr should mention %q:\n%s", tc.stderr, r.stderr)
			}
			if err := srv.CheckPairing(); err != nil {
				t.Error(err)
			}
			for i, req := range srv.Requests() {
				for j := 1; j < len(req.Messages); j++ {
					if req.Messages[j].Role == "assistant" && req.Messages[j-1].Role == "assistant" {
						t.Errorf("request %d: consecutive assistant messages at %d", i, j)
					}
				}
			}
		})
	}
}

// A provider that replays an id an earlier turn answered is not refused:
// the id is the provider's, not the model's, so the call runs under a
// fresh one, and the request stays paired.
func TestCallIDReusedInALaterTurnRuns(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := fp.ToolCall("same", "read_file", `{"file_path":"f.txt"}`)
	srv := fp.New(t, fp.Turn{read}, fp.Turn{read}, fp.Turn{fp.Text("ok")})
	r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[2].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.ToolCallID == "same" || !strings.Contains(last.Text(), "body") {
		t.Fatalf("the second read should run under a fresh id, got %+v", last)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

func TestRepeatedCallStoppedOnTheFifth(t *testing.T) {
	dir := t.TempDir()
	var turns []fp.Turn
	for i := 0; i < 6; i++ {
		// The same call (name and arguments) with fresh ids each time.
		turns = append(turns, fp.Turn{fp.ToolCall("id"+string(rune('a'+i)), "run_shell_command", `{"command":"echo tick >> ticks.txt"}`)})
	}
	srv := fp.New(t, turns...)
	r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "-p", "go")
	if r.code == 0 {
		t.Fatalf("a loop must not end as success:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	if res["subtype"] != "error_loop_detected" || !strings.Contains(res["error"].(string), "5") {
		t.Fatalf("result %v", res)
	}
	ticks, _ := os.ReadFile(filepath.Join(dir, "ticks.txt"))
	if n := strings.Count(string(ticks), "tick"); n != 4 {
		t.Fatalf("the command ran %d times, want 4 (the 5th is stopped before it runs)", n)
	}
	if len(srv.Requests()) != 5 {
		t.Fatalf("%d requests, want 5", len(srv.Requests()))
	}
}
