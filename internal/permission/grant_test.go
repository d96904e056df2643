package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// A grant allows what it names until revoked, and never beats a deny.
func TestGrantRevoke(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, nil, nil, []string{"Bash(rm:*)"})
	check := func(command string) scheduler.Verdict {
		v, _ := p.Check(context.Background(), shellCall(t, command))
		return v
	}
	if v := check("git commit -m x"); v != scheduler.VerdictAsk {
		t.Fatalf("before the grant: %v", v)
	}
	if err := p.Grant("skill release", []string{"Bash(git commit:*)", "Bash(rm:*)", "Bash("}); err == nil {
		t.Error("a rule that does not parse should be reported")
	}
	if v := check("git commit -m x"); v != scheduler.VerdictAllow {
		t.Errorf("granted: %v", v)
	}
	if v := check("rm -rf build"); v != scheduler.VerdictDeny {
		t.Errorf("a grant beat a deny rule: %v", v)
	}
	if len(p.SessionRules()) != 0 {
		t.Errorf("grants are not session rules: %v", p.SessionRules())
	}
	p.Revoke("skill other")
	if v := check("git commit -m x"); v != scheduler.VerdictAllow {
		t.Errorf("revoking another source removed it: %v", v)
	}
	p.Revoke("skill release")
	if v := check("git commit -m x"); v != scheduler.VerdictAsk {
		t.Errorf("after revoke: %v", v)
	}
}

// grantingTool is a skill tool: loading "review" would grant rules.
type grantingTool struct{ fakeTool }

func (grantingTool) Grants(args json.RawMessage) (string, []string) {
	var in struct{ Skill string }
	if json.Unmarshal(args, &in) != nil || in.Skill != "review" {
		return in.Skill, nil
	}
	return "review", []string{"Bash(git *)", "Edit"}
}

func skillCall(t *testing.T, name string) *scheduler.Call {
	raw, _ := json.Marshal(map[string]any{"skill": name})
	return &scheduler.Call{
		Request: scheduler.Request{CallID: "c1", Name: "skill", Args: string(raw)},
		Tool:    grantingTool{fakeTool{"skill", tools.KindRead}},
		Params:  raw,
	}
}

// TestSkillGrantsNeedApproval: a model's load of a skill that grants
// tools asks first, naming them; one that grants none is a read. With no
// one to approve, the load is allowed confined, which the tool takes to
// mean: load the body, grant nothing. A rule allowing the tool, or yolo,
// allows it unconfined.
func TestSkillGrantsNeedApproval(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, nil, nil, nil)
	v, reason, _ := p.CheckConfined(t.Context(), skillCall(t, "review"))
	if v != askV || !strings.Contains(reason, "review") || !strings.Contains(reason, "Bash(git *)") {
		t.Errorf("granting load: %s (%s)", verdictName(v), reason)
	}
	if _, desc := p.AlwaysScope(skillCall(t, "review")); !strings.Contains(desc, "Bash(git *)") {
		t.Errorf("allow always says %q, not the tools granted", desc)
	}
	if v, reason, _ := p.CheckConfined(t.Context(), skillCall(t, "notes")); v != allowV {
		t.Errorf("load without grants: %s (%s)", verdictName(v), reason)
	}
	p.SetUnattended(true)
	if v, reason, confined := p.CheckConfined(t.Context(), skillCall(t, "review")); v != allowV || confined != tools.ConfineReadOnly {
		t.Errorf("unattended granting load: %s confined=%v (%s)", verdictName(v), confined, reason)
	}
	for _, p := range []*Policy{
		newPolicy(t, root, ModeDefault, []string{"skill"}, nil, nil),
		newPolicy(t, root, ModeYOLO, nil, nil, nil),
	} {
		if v, reason, confined := p.CheckConfined(t.Context(), skillCall(t, "review")); v != allowV || confined != tools.Unconfined {
			t.Errorf("%s: %s confined=%v (%s)", p.Mode(), verdictName(v), confined, reason)
		}
	}
}
