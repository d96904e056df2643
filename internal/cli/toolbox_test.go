package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// streamLines decodes stream-json output.
func streamLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestParallelSubagentsOverlapAndReturnInCallOrder(t *testing.T) {
	const stall = 700 * time.Millisecond
	var mu sync.Mutex
	var spans [][2]time.Time // each request's span
	srv := fp.NewServerWithHooks(fp.Hooks{Handler: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			h.ServeHTTP(w, r)
			mu.Lock()
			defer mu.Unlock()
			spans = append(spans, [2]time.Time{start, time.Now()})
		})
	}},
		fp.Turn{
			fp.Text("Splitting the work."),
			fp.ToolCall("call_a", "agent", `{"description":"alpha","prompt":"investigate alpha"}`),
			fp.ToolCall("call_b", "agent", `{"description":"beta","prompt":"investigate beta","subagent_type":"general-purpose"}`),
		},
		fp.Turn{fp.When("investigate alpha"), fp.Stall(stall), fp.Text("alpha report"), fp.Usage(10, 2)},
		fp.Turn{fp.When("investigate beta"), fp.Stall(stall), fp.Text("beta report"), fp.Usage(10, 2)},
		fp.Turn{fp.When("alpha report"), fp.Text("Both done.")},
	)
	defer func() {
		srv.Close()
		for _, f := range srv.Failures() {
			t.Errorf("fakeprovider: %s", f)
		}
	}()
	r := runPly(t, t.TempDir(), srv, "", "-p", "look at both", "-o", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	// The two subagent requests (turns 1 and 2) overlapped in time.
	var sub [][2]time.Time
	mu.Lock()
	for _, s := range spans {
		if s[1].Sub(s[0]) >= stall {
			sub = append(sub, s)
		}
	}
	mu.Unlock()
	if len(sub) != 2 {
		t.Fatalf("%d requests took the stall, want the 2 subagents': %v", len(sub), spans)
	}
	begin, end := sub[0][0], sub[0][1]
	if sub[1][0].After(begin) {
		begin = sub[1][0]
	}
	if sub[1][1].Before(end) {
		end = sub[1][1]
	}
	if overlap := end.Sub(begin); overlap < stall/2 {
		t.Errorf("the subagents' requests overlapped %v, want most of %v: they did not run in parallel", overlap, stall)
	}

	// The subagents' requests carry their own history: the task, not the
	// parent's conversation.
	for _, req := range srv.Requests()[1:3] {
		for _, m := range req.Messages {
			if m.Role == "user" && strings.Contains(m.Text(), "look at both") {
				t.Errorf("a subagent request carries the parent's prompt: %+v", req.Messages)
			}
		}
	}

	lines := streamLines(t, r.stdout)
	nested := map[string]int{}
	var results []map[string]any
	for _, l := range lines {
		if p, ok := l["parent_tool_use_id"].(string); ok {
			nested[p]++
			continue
		}
		if l["type"] == "user" {
			for _, b := range l["message"].(map[string]any)["content"].([]any) {
				results = append(results, b.(map[string]any))
			}
		}
	}
	if nested["call_a"] == 0 || nested["call_b"] == 0 {
		t.Errorf("no nested messages for both subagents: %v\n%s", nested, r.stdout)
	}
	if len(results) != 2 || results[0]["tool_use_id"] != "call_a" || results[0]["content"] != "alpha report" ||
		results[1]["tool_use_id"] != "call_b" || results[1]["content"] != "beta report" {
		t.Errorf("tool results = %v, want alpha then beta", results)
	}
	last := lines[len(lines)-1]
	if last["type"] != "result" || last["subtype"] != "success" || last["result"] != "Both done." {
		t.Errorf("last line = %v", last)
	}
	// The totals include the subagents' tokens (10 in, 2 out each); the
	// parent's own turns report no usage.
	if u, _ := last["usage"].(map[string]any); u["input_tokens"] != 20.0 || u["output_tokens"] != 4.0 {
		t.Errorf("result usage = %v, want the subagents' 20 in and 4 out", last["usage"])
	}
}

func TestTodosAndMemory(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "todo_write", `{"todos":[{"id":"1","content":"read","status":"completed"},{"id":"2","content":"write","status":"in_progress"}]}`)},
		fp.Turn{fp.ToolCall("call_2", "save_memory", `{"fact":"prefers tabs"}`)},
		fp.Turn{fp.Text("Noted.")},
		// The next session: the memory is in its system prompt.
		fp.Turn{fp.When("- prefers tabs"), fp.Text("I remember.")},
	)
	r := runPlyHome(t, dir, home, srv, "-y", "-p", "plan and remember", "--session-id", "7d9c2a10-0000-4000-8000-00000000a11d")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	mem, err := os.ReadFile(filepath.Join(home, "PLY.md"))
	if err != nil || !strings.Contains(string(mem), "## Ply Added Memories\n- prefers tabs\n") {
		t.Fatalf("PLY.md = %q, %v", mem, err)
	}
	if r := runPlyHome(t, dir, home, srv, "-p", "what do I prefer?"); r.code != 0 || r.stdout != "I remember.\n" {
		t.Fatalf("second session: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	// The task list was recorded in the transcript.
	matches, _ := filepath.Glob(filepath.Join(home, "projects", "*", "7d9c2a10-0000-4000-8000-00000000a11d.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("transcript not found: %v", matches)
	}
	b, _ := os.ReadFile(matches[0])
	if !strings.Contains(string(b), `"type":"todos"`) || !strings.Contains(string(b), `"content":"write","status":"in_progress"`) {
		t.Errorf("transcript has no todos record:\n%s", b)
	}
}
