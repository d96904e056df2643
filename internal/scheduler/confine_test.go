package scheduler

import (
	"context"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// confiningPolicy allows calls tagged "ro" as read-only (confined), asks
// for the rest.
type confiningPolicy struct{}

func (confiningPolicy) Enabled(string) (bool, string) { return true, "" }
func (p confiningPolicy) Check(ctx context.Context, c *Call) (Verdict, string) {
	v, r, _ := p.CheckConfined(ctx, c)
	return v, r
}
func (confiningPolicy) CheckConfined(_ context.Context, c *Call) (Verdict, string, tools.Confinement) {
	switch string(c.Params) {
	case `{"tag":"ro"}`:
		return VerdictAllow, "only reads", tools.ConfineReadOnly
	case `{"tag":"rw"}`:
		return VerdictAllow, "held to the workspace", tools.ConfineWorkspace
	}
	return VerdictAsk, "asks", tools.ConfineWorkspace
}

// TestConfinement checks that a call the policy allowed only because it
// reads runs with tools.Confined set, and that a call a human approved
// does not.
func TestConfinement(t *testing.T) {
	var mu sync.Mutex
	confined := map[string]bool{}
	levels := map[string]tools.Confinement{}
	tool := &fakeTool{name: "shell", kind: tools.KindExecute, run: func(ctx context.Context, tag string, _ tools.Output) (tools.Result, error) {
		mu.Lock()
		confined[tag] = tools.Confined(ctx)
		levels[tag] = tools.ConfinementOf(ctx)
		mu.Unlock()
		return tools.Result{Output: "ok"}, nil
	}}
	s := New(tools.NewRegistry(tool), WithPolicy(confiningPolicy{}), WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) {
		return Decision{Outcome: OutcomeAllowOnce}, nil
	})))
	mustRun(t, s, req("shell", "ro"), req("shell", "rw"), req("shell", "approved"))
	if !confined["ro"] || confined["approved"] {
		t.Fatalf("confined = %v; want ro only", confined)
	}
	want := map[string]tools.Confinement{"ro": tools.ConfineReadOnly, "rw": tools.ConfineWorkspace, "approved": tools.Unconfined}
	for tag, w := range want {
		if levels[tag] != w {
			t.Errorf("%s ran %v, want %v", tag, levels[tag], w)
		}
	}
	if calls := mustRun(t, New(tools.NewRegistry(tool), WithPolicy(YOLO{})), req("shell", "ro")); calls[0].State() != StateSuccess || confined["ro"] {
		t.Fatalf("a yolo call ran confined: %v", confined)
	}
}
