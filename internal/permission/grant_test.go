package permission

import (
	"context"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
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
