package scheduler

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// TestEditThatCannotApplyIsNotAsked runs the real edit tool through the
// scheduler: an old_string that matches nowhere, or in several places
// without replace_all, fails with the edit's own message before the
// approver is asked, and the file is untouched. An edit that applies is
// still asked about.
func TestEditThatCannotApplyIsNotAsked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	const text = "alpha\nbeta\nalpha\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.NewEdit(ws))
	edit := func(old, new string) Request {
		b, _ := json.Marshal(map[string]string{"file_path": file, "old_string": old, "new_string": new})
		return Request{CallID: old, Name: "edit", Args: string(b)}
	}
	for _, tc := range []struct {
		name      string
		req       Request
		wantType  string
		wantInOut string
	}{
		{"no match", edit("gamma", "delta"), "EDIT_NO_OCCURRENCE_FOUND", "0 occurrences of old_string found"},
		{"two matches", edit("alpha", "omega"), "EDIT_EXPECTED_OCCURRENCE_MISMATCH", "old_string matches 2 places"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			s := New(reg, WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) {
				asked++
				return Decision{Outcome: OutcomeAllowOnce}, nil
			})))
			c := mustRun(t, s, tc.req)[0]
			out := c.Response().Output
			if asked != 0 || c.State() != StateError || c.ErrorType() != tc.wantType || !strings.Contains(out, tc.wantInOut) {
				t.Fatalf("asked %d times; state %s, type %q, output %q", asked, c.State(), c.ErrorType(), out)
			}
			if b, _ := os.ReadFile(file); string(b) != text {
				t.Fatalf("the file changed: %q", b)
			}
		})
	}

	asked := 0
	s := New(reg, WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) {
		asked++
		return Decision{Outcome: OutcomeAllowOnce}, nil
	})))
	if c := mustRun(t, s, edit("beta", "BETA"))[0]; asked != 1 || c.State() != StateSuccess {
		t.Fatalf("an edit that applies: asked %d times, state %s: %s", asked, c.State(), c.Response().Output)
	}
}

// precheckTool fails every call in its pre-check, and counts checks.
type precheckTool struct {
	*fakeTool
	checked int
}

func (p *precheckTool) Precheck(context.Context, json.RawMessage) *tools.Result {
	p.checked++
	r := tools.Errorf("NOPE", "would fail")
	return &r
}

// TestPrecheckOnlyBeforeAsking: a call the policy allows or denies is not
// pre-checked (the tool reports its own failure when it runs; a denial
// keeps its reason).
func TestPrecheckOnlyBeforeAsking(t *testing.T) {
	for _, tc := range []struct {
		verdict   Verdict
		wantState State
		wantType  string
	}{
		{VerdictAllow, StateSuccess, ""},
		{VerdictDeny, StateError, ErrorTypeExecutionDenied},
		{VerdictAsk, StateError, "NOPE"},
	} {
		tool := &precheckTool{fakeTool: &fakeTool{name: "pc", kind: tools.KindEdit}}
		s := New(tools.NewRegistry(tool), WithPolicy(policyFunc{check: func(*Call) (Verdict, string) { return tc.verdict, "" }}),
			WithApprover(approverFunc(func(context.Context, *Call) (Decision, error) {
				t.Error("asked")
				return Decision{}, nil
			})))
		c := mustRun(t, s, req("pc", "x"))[0]
		wantChecked := 0
		if tc.verdict == VerdictAsk {
			wantChecked = 1
		}
		if c.State() != tc.wantState || c.ErrorType() != tc.wantType || tool.checked != wantChecked {
			t.Errorf("verdict %d: state %s type %q checked %d", tc.verdict, c.State(), c.ErrorType(), tool.checked)
		}
	}
}
