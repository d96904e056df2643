package permission

import (
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// TestPathRulesReachShellOperands: a file a path rule keeps from the file
// tools is not read with cat, sed or grep -r instead. An operand that is
// a denied path is denied, naming the rule; a directory searched
// recursively that holds one, or an operand under an ask rule, asks.
func TestPathRulesReachShellOperands(t *testing.T) {
	root, _ := testWorkspace(t)
	tests := []struct {
		mode             Mode
		allow, ask, deny []string
		cmd              string
		want             scheduler.Verdict
	}{
		{deny: []string{"Read(.env)"}, cmd: "cat .env", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "sed -n p .env", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "grep PASSWORD .env", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "head -n 5 docs/.env", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "cat docs/innocent.txt", want: denyV}, // a link to .env
		{deny: []string{"Read(.env)"}, cmd: "cat .e*", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "cat < .env", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "cd docs && cat .env", want: denyV},
		{deny: []string{"Read(.env)"}, cmd: "grep -r PASSWORD .", want: askV},
		{deny: []string{"Read(.env)"}, cmd: "grep -rn PASSWORD", want: askV},
		{deny: []string{"Read(.env)"}, cmd: "rg PASSWORD", want: askV},
		{deny: []string{"Read(.env)"}, cmd: "rg PASSWORD docs", want: askV},
		{deny: []string{"Read(.env)"}, cmd: "cat src/main.go", want: allowV},
		{deny: []string{"Read(.env)"}, cmd: "grep -r x src", want: allowV},
		{deny: []string{"Read(.env)"}, cmd: "ls -la", want: allowV},
		{deny: []string{"Read(.env)"}, cmd: "git status", want: allowV},
		{deny: []string{"Read(.env)"}, cmd: "echo $HOME", want: allowV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash(cat *)"}, cmd: "cat .env", want: denyV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash(cat *)"}, cmd: "cat src/main.go", want: allowV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash"}, cmd: "sudo cat .env", want: denyV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash"}, cmd: "sh -c 'cat .env'", want: denyV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash"}, cmd: "cat $F", want: askV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash"}, cmd: "find . -name x | xargs cat", want: askV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash(tar *)"}, cmd: "tar czf /tmp/x.tgz .", want: askV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash(git *)"}, cmd: "git show HEAD:.env", want: denyV},
		{deny: []string{"Read(.env)"}, allow: []string{"Bash(npm test)"}, cmd: "npm test", want: allowV},
		{mode: ModeYOLO, deny: []string{"Read(.env)"}, cmd: "cat .env", want: denyV},
		{mode: ModeYOLO, deny: []string{"Read(.env)"}, cmd: "grep -r PASSWORD .", want: askV},
		{ask: []string{"Read(secrets/**)"}, cmd: "cat secrets/id.key", want: askV},
		{mode: ModeYOLO, ask: []string{"Read(secrets/**)"}, cmd: "cat secrets/id.key", want: askV},
		{deny: []string{"Edit(/src/**)"}, cmd: "cat src/main.go", want: allowV},
		{deny: []string{"Edit(/src/**)"}, allow: []string{"Bash(cp *)"}, cmd: "cp README.md src/main.go", want: denyV},
		{deny: []string{"Edit(/src/**)"}, allow: []string{"Bash(echo *)"}, cmd: "echo x > src/main.go", want: denyV},
	}
	for _, tt := range tests {
		p := newPolicy(t, root, tt.mode, tt.allow, tt.ask, tt.deny)
		v, reason := p.Check(t.Context(), shellCall(t, tt.cmd))
		if v != tt.want {
			t.Errorf("allow %v ask %v deny %v: %q = %s (%s), want %s", tt.allow, tt.ask, tt.deny, tt.cmd, verdictName(v), reason, verdictName(tt.want))
			continue
		}
		if v == denyV && !strings.Contains(reason, "rule") {
			t.Errorf("%q: reason %q names no rule", tt.cmd, reason)
		}
	}
}

// TestAlwaysNotOfferedUnderPathRules: allowing always could not answer a
// path rule's question, so the dialog offers nothing to remember.
func TestAlwaysNotOfferedUnderPathRules(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, nil, nil, []string{"Read(.env)"})
	if rules, desc := p.AlwaysScope(shellCall(t, "tar czf /tmp/x.tgz .")); rules != nil {
		t.Errorf("allow always offered %q (%s) for a command a path rule asks about", rules, desc)
	}
	if rules, _ := p.AlwaysScope(shellCall(t, "make build")); rules == nil {
		t.Error("allow always not offered for a command no path rule concerns")
	}
}
