package permission

import (
	"slices"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

func TestRulesListAndSessionEdit(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, []string{"Read"}, []string{"Bash(git push:*)"}, []string{"Read(.env)"})
	want := []ListedRule{{"deny", "Read(.env)", "settings"}, {"ask", "Bash(git push:*)", "settings"}, {"allow", "Read", "settings"}}
	if got := p.Rules(); !slices.Equal(got, want) {
		t.Fatalf("Rules() = %v, want %v", got, want)
	}
	ls := call(t, ToolShell, map[string]any{"command": "npm test"})
	if v, _ := p.Check(t.Context(), ls); v != scheduler.VerdictAsk {
		t.Fatalf("npm test before the rule: %v", v)
	}
	if err := p.AddSessionAllow("Bash(npm test)"); err != nil {
		t.Fatal(err)
	}
	if err := p.AddSessionAllow("Bash(npm test)"); err == nil {
		t.Fatal("a rule added twice")
	}
	if err := p.AddSessionAllow("Bash("); err == nil {
		t.Fatal("a rule that does not parse was added")
	}
	if v, _ := p.Check(t.Context(), ls); v != scheduler.VerdictAllow {
		t.Fatalf("npm test after the rule: %v", v)
	}
	if got := p.Rules(); got[len(got)-1] != (ListedRule{"allow", "Bash(npm test)", SourceSession}) {
		t.Fatalf("session rule not listed: %v", got)
	}
	if err := p.RemoveSessionAllow("Read"); err == nil {
		t.Fatal("a settings rule was removed")
	}
	if err := p.RemoveSessionAllow("Bash(npm test)"); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Check(t.Context(), ls); v != scheduler.VerdictAsk {
		t.Fatalf("npm test after removing the rule: %v", v)
	}
}
