package hooks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// denyRM is a policy that asks for every shell command and denies the
// ones that remove files, as a user's deny rule would.
type denyRM struct{}

func (denyRM) Enabled(string) (bool, string) { return true, "" }
func (denyRM) Check(_ context.Context, c *scheduler.Call) (scheduler.Verdict, string) {
	var p struct{ Command string }
	_ = json.Unmarshal(c.Params, &p)
	if strings.HasPrefix(p.Command, "rm ") {
		return scheduler.VerdictDeny, "rm is denied by rule Bash(rm:*)"
	}
	return scheduler.VerdictAsk, ""
}

// TestPermissionRequestUpdatedInput drives the real scheduler: a
// PermissionRequest hook's allow with an updatedInput runs the call with
// the new arguments, validated again and checked against the deny rules.
func TestPermissionRequestUpdatedInput(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			var perm Command
			if kind == TypeHTTP {
				perm = e.answering(kind, "perm", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"make test -j2"}}}}`)
			} else {
				perm = Command{Command: e.script("perm.sh", `
input=$(cat)
case "$input" in
  *'make test'*) echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"make test -j2"}}}}' ;;
  *'tidy'*) echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"rm -rf build"}}}}' ;;
  *'bad'*) echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"cmd":"oops"}}}}' ;;
esac`)}
			}
			r := e.runner(Config{PermissionRequest: {{Matcher: "Bash", Hooks: []Command{perm}}}})
			s := scheduler.New(tools.NewRegistry(echoTool{"run_shell_command"}),
				scheduler.WithPolicy(denyRM{}),
				scheduler.WithApprover(Approver(r, approver(func(c *scheduler.Call) scheduler.Decision {
					t.Errorf("the user was asked about %s", c.CallID)
					return scheduler.Decision{}
				}))),
				scheduler.WithHooks(ForScheduler(r)))
			reqs := []scheduler.Request{shellReq("test", "make test")}
			if kind != TypeHTTP {
				reqs = append(reqs, shellReq("tidy", "make tidy"), shellReq("bad", "make bad"))
			}
			calls, err := s.Run(context.Background(), reqs)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := calls[0].Response().Output; got != "ran: make test -j2" {
				t.Errorf("updated call output = %q", got)
			}
			if kind != TypeHTTP {
				if c := calls[1]; c.ErrorType() != scheduler.ErrorTypeExecutionDenied ||
					!strings.Contains(c.Response().Output, "PermissionRequest hook") || !strings.Contains(c.Response().Output, "Bash(rm:*)") {
					t.Errorf("rewritten into a denied call: %s %q", c.ErrorType(), c.Response().Output)
				}
				if c := calls[2]; c.ErrorType() != scheduler.ErrorTypeInvalidParams || !strings.Contains(c.Response().Output, "PermissionRequest hook") {
					t.Errorf("invalid rewrite: %s %q", c.ErrorType(), c.Response().Output)
				}
			}
			if w := e.reported(); len(w) != 0 {
				t.Errorf("warnings: %v", w)
			}
		})
	}
}
