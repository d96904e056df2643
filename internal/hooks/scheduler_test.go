package hooks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// TestForScheduler drives the real scheduler with real hook scripts.
func TestForScheduler(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pre := e.script("pre.sh", `
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "refusing rm -rf" >&2; exit 2 ;;
  *'git push'*) echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"pushes"}}' ;;
  *'make test'*) echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"make test -j2"}}}' ;;
  *'make bad'*) echo '{"hookSpecificOutput":{"updatedInput":{"cmd":"oops"}}}' ;;
  *'shutdown'*) echo '{"continue":false,"stopReason":"no more today"}' ;;
esac`)
	post := e.script("post.sh", `cat > post.json; echo '{"hookSpecificOutput":{"additionalContext":"2 tests failed"}}'`)
	batch := e.script("batch.sh", `
input=$(cat)
echo "$input" > batch.json
case "$input" in *'"tool_use_id":"t2"'*) echo "coverage dropped" >&2; exit 2 ;; esac`)
	r := e.runner(Config{
		PreToolUse:    {{Matcher: "Bash", Hooks: []Command{{Command: pre}}}},
		PostToolUse:   {{Matcher: "Bash", Hooks: []Command{{Command: post}}}},
		PostToolBatch: {{Hooks: []Command{{Command: batch}}}},
	})
	var asked []string
	s := scheduler.New(tools.NewRegistry(echoTool{"run_shell_command"}),
		// The default policy asks for shell commands; the hook's allow
		// must skip that, its ask must reach the approver.
		scheduler.WithApprover(approver(func(c *scheduler.Call) scheduler.Decision {
			asked = append(asked, c.CallID+":"+c.HookDecision().Reason)
			return scheduler.Decision{Outcome: scheduler.OutcomeDeny}
		})),
		scheduler.WithHooks(ForScheduler(r)))

	calls, err := s.Run(context.Background(), []scheduler.Request{
		shellReq("rm", "rm -rf /"), shellReq("push", "git push"), shellReq("test", "make test"), shellReq("bad", "make bad"),
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if c := calls[0]; c.ErrorType() != scheduler.ErrorTypeExecutionDenied || !strings.Contains(c.Response().Output, "refusing rm -rf") {
		t.Errorf("rm: %s %q", c.ErrorType(), c.Response().Output)
	}
	if c := calls[1]; c.State() != scheduler.StateCancelled || len(asked) != 1 || asked[0] != "push:pushes" {
		t.Errorf("push: %s, asked %v", c.State(), asked)
	}
	if got := calls[2].Response().Output; got != "ran: make test -j2\n\n[PostToolUse hook]: 2 tests failed" {
		t.Errorf("test output = %q", got)
	}
	if c := calls[3]; c.ErrorType() != scheduler.ErrorTypeInvalidParams {
		t.Errorf("bad rewrite: %s %q", c.ErrorType(), c.Response().Output)
	}
	post1 := e.readJSON("post.json")
	if tr, _ := post1["tool_response"].(map[string]any); tr["output"] != "ran: make test -j2" || tr["state"] != "success" {
		t.Errorf("PostToolUse input = %v", post1)
	}
	if in := e.readJSON("batch.json"); len(in["tool_calls"].([]any)) != 4 {
		t.Errorf("PostToolBatch input = %v", in)
	}

	// PostToolBatch stops the batch.
	calls, err = s.Run(context.Background(), []scheduler.Request{shellReq("t2", "make test stop-batch")})
	var stopped *scheduler.BatchStoppedError
	if !errors.As(err, &stopped) || stopped.Reason != "coverage dropped" ||
		!strings.Contains(calls[0].Response().Output, "stopped the agent after this batch") {
		t.Errorf("err %v, output %q", err, calls[0].Response().Output)
	}

	// "continue": false from PreToolUse denies the call and stops the
	// batch; the next batch runs normally.
	calls, err = s.Run(context.Background(), []scheduler.Request{shellReq("off", "shutdown")})
	if !errors.As(err, &stopped) || stopped.Reason != "no more today" || calls[0].ErrorType() != scheduler.ErrorTypeExecutionDenied {
		t.Errorf("err %v, call %s %q", err, calls[0].ErrorType(), calls[0].Response().Output)
	}
	if _, err := s.Run(context.Background(), []scheduler.Request{shellReq("t3", "make test")}); err != nil {
		t.Errorf("next batch: %v", err)
	}
	if w := e.reported(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
}
