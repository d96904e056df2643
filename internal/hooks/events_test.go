package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var ctx = context.Background()

func TestSessionStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plain := e.script("plain.sh", `cat > start.json; echo "Branch: main, 3 uncommitted files"`)
	jsonCtx := e.script("json.sh", `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Resumed: remember the TODO list"}}'`)
	r := e.runner(Config{SessionStart: {
		{Hooks: []Command{{Command: plain}}},
		{Matcher: "resume", Hooks: []Command{{Command: jsonCtx}}},
	}})
	if got := r.SessionStart(ctx, "startup"); got != "Branch: main, 3 uncommitted files" {
		t.Errorf("startup context = %q", got)
	}
	if in := e.readJSON("start.json"); in["source"] != "startup" || in["hook_event_name"] != SessionStart {
		t.Errorf("input = %v", in)
	}
	if got := r.SessionStart(ctx, "resume"); got != "Branch: main, 3 uncommitted files\nResumed: remember the TODO list" {
		t.Errorf("resume context = %q", got)
	}

	// A SessionStart cannot be blocked: the answer is reported.
	e2 := newEnv(t)
	r2 := e2.runner(one(SessionStart, "", `echo "not today" >&2; exit 2`, 0))
	if got := r2.SessionStart(ctx, "startup"); got != "" {
		t.Errorf("context = %q", got)
	}
	if w := e2.reported(); len(w) != 1 || !errors.Is(w[0], ErrIgnored) || !strings.Contains(w[0].Error(), "not today") {
		t.Errorf("warnings = %v", w)
	}
}

func TestUserPromptSubmit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.script("ups.sh", `
input=$(cat)
echo "$input" > prompt.json
case "$input" in
  *secret*) echo "The prompt contains a secret." >&2; exit 2 ;;
  *json-block*) echo '{"decision":"block","reason":"blocked by policy"}' ;;
  *stop*) echo '{"continue":false,"stopReason":"session frozen"}' ;;
  *plain*) echo "Current time: noon" ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Ticket PLY-42 is open"}}' ;;
esac`)
	r := e.runner(one(UserPromptSubmit, "ignored-matcher", cmd, 0))
	for _, tc := range []struct {
		prompt, reason, context string
		block                   bool
	}{
		{"my secret is hunter2", "The prompt contains a secret.", "", true},
		{"json-block please", "blocked by policy", "", true},
		{"stop now", "session frozen", "", true},
		{"plain text", "", "Current time: noon", false},
		{"fix the bug", "", "Ticket PLY-42 is open", false},
	} {
		block, reason, context := r.UserPromptSubmit(ctx, tc.prompt)
		if block != tc.block || reason != tc.reason || context != tc.context {
			t.Errorf("%q: block %v reason %q context %q", tc.prompt, block, reason, context)
		}
	}
	if in := e.readJSON("prompt.json"); in["prompt"] != "fix the bug" {
		t.Errorf("input = %v", in)
	}
}

func TestPreToolUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.script("pre.sh", `
input=$(cat)
echo "$input" > pre.json
case "$input" in
  *'"cmd":"allow"'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}' ;;
  *'"cmd":"deny"'*) echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"rm is forbidden"}}' ;;
  *'"cmd":"ask"'*) echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"pushes to main"}}' ;;
  *'"cmd":"rewrite"'*) echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"cmd":"rewritten --dry-run"}}}' ;;
  *'"cmd":"approve"'*) echo '{"decision":"approve","reason":"legacy ok"}' ;;
  *'"cmd":"block"'*) echo '{"decision":"block","reason":"legacy no"}' ;;
  *'"cmd":"halt"'*) echo '{"continue":false,"stopReason":"halted"}' ;;
  *'"cmd":"exit2"'*) echo "exit two" >&2; exit 2 ;;
  *'"cmd":"text"'*) echo "just chatter" ;;
esac`)
	r := e.runner(one(PreToolUse, "Bash", cmd, 0))
	for _, tc := range []struct {
		cmd     string
		verdict Verdict
		reason  string
		updated string
	}{
		{"allow", VerdictAllow, "safe", ""},
		{"deny", VerdictDeny, "rm is forbidden", ""},
		{"ask", VerdictAsk, "pushes to main", ""},
		{"rewrite", VerdictAllow, "", `{"cmd":"rewritten --dry-run"}`},
		{"approve", VerdictAllow, "legacy ok", ""},
		{"block", VerdictDeny, "legacy no", ""},
		{"halt", VerdictDeny, "halted", ""},
		{"exit2", VerdictDeny, "exit two", ""},
		{"text", VerdictNone, "", ""},
	} {
		p, err := r.PreToolUse(ctx, "run_shell_command", "c1", json.RawMessage(`{"cmd":"`+tc.cmd+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if p.Verdict != tc.verdict || p.Reason != tc.reason || string(p.UpdatedInput) != tc.updated {
			t.Errorf("%s: got %v %q %s", tc.cmd, p.Verdict, p.Reason, p.UpdatedInput)
		}
	}
	if in := e.readJSON("pre.json"); in["tool_name"] != "run_shell_command" || in["tool_use_id"] != "c1" {
		t.Errorf("input = %v", in)
	}
	// The matcher selects Bash only.
	if p, _ := r.PreToolUse(ctx, "edit", "c2", json.RawMessage(`{"cmd":"deny"}`)); p.Verdict != VerdictNone {
		t.Errorf("edit matched Bash: %v", p.Verdict)
	}
	if w := e.reported(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
}

func TestPostToolUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.script("post.sh", `
input=$(cat)
echo "$input" > post.json
case "$input" in
  *'"file_path":"bad.go"'*) echo '{"decision":"block","reason":"gofmt failed on bad.go"}' ;;
  *'"file_path":"exit2.go"'*) echo "vet: unreachable code" >&2; exit 2 ;;
  *'"file_path":"text.go"'*) echo "plain text is not context here" ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted"}}' ;;
esac`)
	r := e.runner(one(PostToolUse, "Edit|Write", cmd, 0))
	resp := json.RawMessage(`{"output":"ok","is_error":false}`)
	for file, want := range map[string]string{
		"good.go": "formatted", "bad.go": "gofmt failed on bad.go", "exit2.go": "vet: unreachable code", "text.go": "",
	} {
		if got := r.PostToolUse(ctx, "write_file", "c1", json.RawMessage(`{"file_path":"`+file+`"}`), resp); got != want {
			t.Errorf("%s: context %q, want %q", file, got, want)
		}
	}
	in := e.readJSON("post.json")
	if tr, _ := in["tool_response"].(map[string]any); in["tool_name"] != "write_file" || tr["output"] != "ok" {
		t.Errorf("input = %v", in)
	}
	if got := r.PostToolUse(ctx, "read_file", "c2", json.RawMessage(`{"file_path":"good.go"}`), resp); got != "" {
		t.Errorf("read_file matched Edit|Write: %q", got)
	}
}

func TestPostToolBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.script("batch.sh", `
input=$(cat)
echo "$input" > batch.json
case "$input" in
  *'"tool_use_id":"exit2"'*) echo "tests are red" >&2; exit 2 ;;
  *'"tool_use_id":"halt"'*) echo '{"continue":false,"stopReason":"budget spent"}' ;;
esac`)
	r := e.runner(one(PostToolBatch, "Bash", cmd, 0))
	batch := func(ids ...string) []BatchCall {
		var out []BatchCall
		for i, id := range ids {
			name := "read_file"
			if i == len(ids)-1 {
				name = "run_shell_command"
			}
			out = append(out, BatchCall{ToolName: name, ToolUseID: id, ToolInput: json.RawMessage(`{}`)})
		}
		return out
	}
	for _, tc := range []struct {
		calls  []BatchCall
		stop   bool
		reason string
	}{
		{batch("a", "exit2"), true, "tests are red"},
		{batch("halt"), true, "budget spent"},
		{batch("a", "b"), false, ""},
		// No Bash call in the batch: the hook does not run.
		{[]BatchCall{{ToolName: "edit", ToolUseID: "exit2"}}, false, ""},
	} {
		stop, reason := r.PostToolBatch(ctx, tc.calls)
		if stop != tc.stop || reason != tc.reason {
			t.Errorf("%+v: stop %v %q", tc.calls, stop, reason)
		}
	}
	in := e.readJSON("batch.json")
	if calls, _ := in["tool_calls"].([]any); len(calls) != 2 {
		t.Errorf("input = %v", in)
	}
}

func TestStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Blocks once, then lets the agent stop when stop_hook_active is set,
	// as a well-behaved Claude Code Stop hook does.
	cmd := e.script("stop.sh", `
input=$(cat)
echo "$input" > stop.json
case "$input" in
  *'"stop_hook_active":true'*) exit 0 ;;
  *'all tests pass'*) exit 0 ;;
  *) echo '{"decision":"block","reason":"Run the tests before you stop."}' ;;
esac`)
	r := e.runner(one(Stop, "", cmd, 0))
	if block, reason := r.Stop(ctx, "I fixed it."); !block || reason != "Run the tests before you stop." {
		t.Fatalf("first Stop: %v %q", block, reason)
	}
	if in := e.readJSON("stop.json"); in["stop_hook_active"] != false || in["last_assistant_message"] != "I fixed it." {
		t.Errorf("first input = %v", in)
	}
	if block, _ := r.Stop(ctx, "Ran them."); block {
		t.Error("second Stop blocked although stop_hook_active was set")
	}
	if in := e.readJSON("stop.json"); in["stop_hook_active"] != true {
		t.Errorf("second input = %v", in)
	}
	// A new user prompt ends the continuation.
	r.UserPromptSubmit(ctx, "next task")
	if block, _ := r.Stop(ctx, "Done."); !block {
		t.Error("Stop after a new prompt did not block")
	}

	for name, tc := range map[string]struct {
		body string
		warn bool
	}{
		"continue false wins":  {`echo '{"decision":"block","reason":"go on","continue":false}'`, false},
		"block without reason": {`exit 2`, true},
		"crash":                {`kill -SEGV $$`, true},
	} {
		e := newEnv(t)
		r := e.runner(one(Stop, "", e.script("s.sh", tc.body), 5*time.Second))
		if block, reason := r.Stop(ctx, "done"); block {
			t.Errorf("%s: blocked with %q", name, reason)
		}
		if got := len(e.reported()) > 0; got != tc.warn {
			t.Errorf("%s: warnings %v", name, e.reported())
		}
	}
}

func TestSessionEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.script("end.sh", `input=$(cat); echo "$input" > end.json; echo "$input" >> ends.log`)
	r := e.runner(Config{SessionEnd: {{Matcher: "clear|other", Hooks: []Command{{Command: cmd}}}}})
	r.SessionEnd(ctx, "prompt_input_exit") // does not match
	r.SessionEnd(ctx, "other")
	if in := e.readJSON("end.json"); in["reason"] != "other" || in["hook_event_name"] != SessionEnd {
		t.Errorf("input = %v", in)
	}
	if n := strings.Count(e.readFile("ends.log"), "\n") + 1; n != 1 {
		t.Errorf("the hook ran %d times, want once", n)
	}
}
