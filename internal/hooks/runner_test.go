package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// alive reports whether pid names a live process; a zombie waiting for a
// parent that does not reap (PID 1 in some containers) counts as dead.
func alive(pid int) bool {
	if !sandboxtest.Alive(pid) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestTimeout: a hanging hook is killed at its timeout together with
// what it started, reported, and counts as no decision.
func TestTimeout(t *testing.T) {
	e := newEnv(t)
	cmd := e.script("hang.sh", `sleep 30 & echo $! > "$PLY_PROJECT_DIR/child.pid"; wait; echo '{"decision":"block","reason":"too late"}'`)
	r := e.runner(one(Stop, "", cmd, time.Second))
	start := time.Now()
	d, err := r.Run(context.Background(), Stop, Input{})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if elapsed > 4*time.Second {
		t.Errorf("Run took %v with a 1s timeout", elapsed)
	}
	if d.Block || len(d.Warnings) != 1 || !errors.Is(d.Warnings[0].Err, ErrTimeout) {
		t.Fatalf("decision = %+v", d)
	}
	if msg := d.Warnings[0].Error(); !strings.Contains(msg, "hang.sh") || !strings.Contains(msg, "timed out after 1s") {
		t.Errorf("warning = %q", msg)
	}
	if got := e.reported(); len(got) != 1 {
		t.Errorf("OnWarning got %v", got)
	}
	pid, err := strconv.Atoi(e.readFile("child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			sandboxtest.Kill(pid)
			t.Fatalf("the hook's child %d survived the timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFailures: every way a hook can fail is a warning and no decision.
func TestFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		is         error
		msg        string
	}{
		{"segfault", `kill -SEGV $$`, ErrCrashed, "crashed (killed by signal 11"},
		{"exit 1", `echo 'cannot reach the linter' >&2; exit 1`, ErrExitStatus, "failed with exit code 1: cannot reach the linter"},
		{"not found", `no-such-command-xyz`, ErrExitStatus, "exit code 127"},
		{"truncated JSON", `echo '{"decision": "block", "reason"'`, ErrBadOutput, "invalid JSON"},
		{"wrong type", `echo '{"decision": 5}'`, ErrBadOutput, "invalid JSON"},
		{"text after JSON", `echo '{"decision": "block"} trailing'`, ErrBadOutput, "text after the JSON object"},
		{"unknown decision", `echo '{"decision": "maybe"}'`, ErrBadOutput, `unknown "decision" "maybe"`},
		{"unknown permission", `echo '{"hookSpecificOutput": {"permissionDecision": "sure"}}'`, ErrBadOutput, `unknown "permissionDecision"`},
		{"updatedInput not an object", `echo '{"hookSpecificOutput": {"updatedInput": [1]}}'`, ErrBadOutput, "must be a JSON object"},
		{"too much output", `head -c 1100000 /dev/zero | tr '\0' ' '; echo '{"decision":"block"}'`, ErrBadOutput, "more than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.runner(one(PreToolUse, "", e.script("hook.sh", tc.body), 10*time.Second))
			d, err := r.Run(context.Background(), PreToolUse, Input{ToolName: "edit"})
			if err != nil {
				t.Fatal(err)
			}
			if d.Block || d.Verdict != VerdictNone || len(d.Warnings) != 1 {
				t.Fatalf("decision = %+v", d)
			}
			w := d.Warnings[0]
			if !errors.Is(w, tc.is) || !strings.Contains(w.Error(), tc.msg) {
				t.Errorf("warning = %q, want %v and %q", w.Error(), tc.is, tc.msg)
			}
			if w.Event != PreToolUse || !strings.Contains(w.Command, "hook.sh") {
				t.Errorf("warning names %s / %s", w.Event, w.Command)
			}
		})
	}
}

// TestExit2 blocks with stderr as the reason and ignores stdout.
func TestExit2(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.script("block.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo "rm -rf is not allowed here" >&2; exit 2`)
	d, err := e.runner(one(PreToolUse, "", cmd, 0)).Run(context.Background(), PreToolUse, Input{ToolName: "edit"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Block || d.BlockReason != "rm -rf is not allowed here" || d.Verdict != VerdictNone || len(d.Warnings) != 0 {
		t.Errorf("decision = %+v", d)
	}
}

// TestInput: the hook runs in the workspace with the project variables
// set and reads the event on stdin.
func TestInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sub := filepath.Join(e.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := e.script("capture.sh", `cat > "$PWD/input.json"; printf '%s\n%s\n%s\n' "$PWD" "$PLY_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" > env.txt`)
	r := e.runner(one(PreToolUse, "", cmd, 0))
	if _, err := r.Run(context.Background(), PreToolUse, Input{ToolName: "edit", ToolUseID: "call-7", ToolInput: json.RawMessage(`{"file_path":"a.go"}`)}); err != nil {
		t.Fatal(err)
	}
	in := e.readJSON("input.json")
	want := map[string]any{
		"session_id": "sess-1", "transcript_path": "/tmp/transcript.jsonl", "cwd": e.dir,
		"hook_event_name": "PreToolUse", "permission_mode": "default",
		"tool_name": "edit", "tool_use_id": "call-7", "tool_input": map[string]any{"file_path": "a.go"},
	}
	for k, v := range want {
		if got, _ := json.Marshal(in[k]); string(got) != string(must(json.Marshal(v))) {
			t.Errorf("input[%s] = %s, want %v", k, got, v)
		}
	}
	if _, ok := in["prompt"]; ok {
		t.Errorf("PreToolUse input has a prompt: %v", in)
	}
	if got := e.readFile("env.txt"); got != strings.Repeat(e.dir+"\n", 2)+e.dir {
		t.Errorf("cwd and project variables = %q", got)
	}

	r.SetSession("sess-2", "/tmp/other.jsonl")
	if _, err := r.Run(context.Background(), PreToolUse, Input{ToolName: "edit"}); err != nil {
		t.Fatal(err)
	}
	if in := e.readJSON("input.json"); in["session_id"] != "sess-2" || in["transcript_path"] != "/tmp/other.jsonl" {
		t.Errorf("after SetSession: %v", in)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestStrayHoldsStdout: a hook that exits 0 while something it started
// keeps stdout open still counts, once the pipes are given up on.
func TestStrayHoldsStdout(t *testing.T) {
	e := newEnv(t)
	cmd := e.script("stray.sh", `(sleep 4 &); echo '{"decision":"block","reason":"stray"}'`)
	start := time.Now()
	d, err := e.runner(one(Stop, "", cmd, 0)).Run(context.Background(), Stop, Input{})
	if err != nil || !d.Block || d.BlockReason != "stray" || len(d.Warnings) != 0 {
		t.Errorf("d = %+v, err = %v", d, err)
	}
	if el := time.Since(start); el > waitDelay+time.Second {
		t.Errorf("Run took %v; it must not wait for the stray process", el)
	}
}

// TestIgnoresStdin: a hook that exits without reading a large input is
// not an error.
func TestIgnoresStdin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big, _ := json.Marshal(map[string]string{"content": strings.Repeat("x", 1<<20)})
	d, err := e.runner(one(PreToolUse, "", "exit 0", 0)).Run(context.Background(), PreToolUse, Input{ToolName: "write_file", ToolInput: big})
	if err != nil || len(d.Warnings) != 0 {
		t.Errorf("d = %+v, err = %v", d, err)
	}
}

// TestParallelAndCombined: the hooks of an event run at the same time
// (each waits for the other to start) and their answers combine.
func TestParallelAndCombined(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wait := func(me, other string) string {
		return `touch ` + me + `; for i in $(seq 100); do [ -e ` + other + ` ] && break; sleep 0.05; done; [ -e ` + other + ` ] || exit 1; `
	}
	a := e.script("a.sh", wait("a.started", "b.started")+
		`echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"v":1},"additionalContext":"from a"}}'`)
	b := e.script("b.sh", wait("b.started", "a.started")+
		`echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"b asks","updatedInput":{"v":2},"additionalContext":"from b"},"systemMessage":"b was here"}'`)
	c := e.script("c.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"c asks too"}}'`)
	cfg := Config{PreToolUse: {
		{Matcher: "Edit", Hooks: []Command{{Command: a}}},
		{Matcher: "edit|write_file", Hooks: []Command{{Command: b}, {Command: c}}},
		// The same command again runs once.
		{Hooks: []Command{{Command: a}}},
		{Matcher: "Bash", Hooks: []Command{{Command: `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`}}},
	}}
	d, err := e.runner(cfg).Run(context.Background(), PreToolUse, Input{ToolName: "edit"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 0 {
		t.Fatalf("warnings: %v (did the hooks run in parallel?)", d.Warnings)
	}
	if d.Verdict != VerdictAsk || d.Reason != "b asks\nc asks too" {
		t.Errorf("verdict %v %q", d.Verdict, d.Reason)
	}
	if string(d.UpdatedInput) != `{"v":2}` || d.Context != "from a\nfrom b" {
		t.Errorf("updatedInput %s, context %q", d.UpdatedInput, d.Context)
	}
	if len(e.messages) != 1 || e.messages[0] != "b was here" {
		t.Errorf("messages %v", e.messages)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	var d Decision
	for _, b := range []Decision{
		{Verdict: VerdictAllow, Reason: "fine"},
		{Verdict: VerdictDeny, Reason: "no"},
		{Verdict: VerdictAsk, Reason: "hmm"},
		{Block: true, BlockReason: "blocked"},
		{},
		{Stop: true, StopReason: "halt"},
	} {
		d.merge(b)
	}
	if d.Verdict != VerdictDeny || d.Reason != "no" || !d.Block || d.BlockReason != "blocked" || !d.Stop || d.StopReason != "halt" {
		t.Errorf("merged = %+v", d)
	}
}

// TestCancel: a cancelled Run kills its hooks and reports ctx's error,
// not a warning.
func TestCancel(t *testing.T) {
	e := newEnv(t)
	r := e.runner(one(Stop, "", "sleep 30", 0))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	d, err := r.Run(ctx, Stop, Input{})
	if !errors.Is(err, context.DeadlineExceeded) || len(d.Warnings) != 0 || time.Since(start) > 3*time.Second {
		t.Errorf("d = %+v, err = %v after %v", d, err, time.Since(start))
	}
}

func TestNilRunner(t *testing.T) {
	t.Parallel()
	var r *Runner
	ctx := context.Background()
	if d, err := r.Run(ctx, Stop, Input{}); err != nil || d.Block {
		t.Error("nil Run")
	}
	if p, err := r.PreToolUse(ctx, "edit", "1", nil); err != nil || p.Verdict != VerdictNone {
		t.Error("nil PreToolUse")
	}
	if r.PostToolUse(ctx, "edit", "1", nil, nil) != "" || r.SessionStart(ctx, "startup") != "" {
		t.Error("nil context")
	}
	if stop, _ := r.PostToolBatch(ctx, nil); stop {
		t.Error("nil PostToolBatch")
	}
	if block, _, _ := r.UserPromptSubmit(ctx, "hi"); block {
		t.Error("nil UserPromptSubmit")
	}
	if block, _ := r.Stop(ctx, "done"); block {
		t.Error("nil Stop")
	}
	r.SessionEnd(ctx, "other")
}
