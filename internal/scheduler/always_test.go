package scheduler

import (
	"context"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// rulePolicy asks for everything and records allow-always answers, as the
// permission layer does with narrow rules.
type rulePolicy struct {
	mu      sync.Mutex
	allowed []string
}

func (*rulePolicy) Enabled(string) (bool, string) { return true, "" }
func (*rulePolicy) Check(context.Context, *Call) (Verdict, string) {
	return VerdictAsk, ""
}
func (p *rulePolicy) AllowAlways(c *Call) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allowed = append(p.allowed, c.CallID)
}

// TestAllowAlwaysDefersToThePolicy checks that an allow-always answer does
// not approve every later call of the tool when the policy keeps its own
// (narrower) rule: the policy still decides, and here it asks again.
func TestAllowAlwaysDefersToThePolicy(t *testing.T) {
	r := newRecorder()
	reg := tools.NewRegistry(r.tool("shell", tools.KindExecute, 0))
	asked := 0
	pol := &rulePolicy{}
	s := New(reg, WithPolicy(pol), WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) {
		asked++
		return Decision{Outcome: OutcomeAllowAlways}, nil
	})))
	mustRun(t, s, req("shell", "a"))
	mustRun(t, s, req("shell", "b"))
	if asked != 2 || len(pol.allowed) != 2 {
		t.Fatalf("asked %d times, policy recorded %v; want 2 and 2", asked, pol.allowed)
	}

	// Without a rule-keeping policy the scheduler remembers the tool.
	asked = 0
	s2 := New(reg, WithPolicy(policyFunc{check: func(*Call) (Verdict, string) { return VerdictAsk, "" }}),
		WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) {
			asked++
			return Decision{Outcome: OutcomeAllowAlways}, nil
		})))
	mustRun(t, s2, req("shell", "a"))
	mustRun(t, s2, req("shell", "b"))
	if asked != 1 {
		t.Fatalf("asked %d times, want 1", asked)
	}
}
