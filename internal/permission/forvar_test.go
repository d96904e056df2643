package permission

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// A variable assigned by a loop (or read, declare, ...) is invisible in
// the simple commands rules match: unless the variable is provably
// harmless, the line is opaque, so it is neither auto-approved nor
// covered by an allow rule, and every deny or ask rule catches it.
func TestAssignedVariablesFailClosed(t *testing.T) {
	root, _ := testWorkspace(t)
	tests := []struct {
		allow, deny []string
		cmd         string
		want        scheduler.Verdict
	}{
		{nil, nil, "for PATH in .; do ls; done", askV},
		{nil, nil, "for HOME in .; do git diff; done", askV},
		{nil, nil, "for CDPATH in /etc; do cd ssh && ls; done", askV},
		{nil, nil, "read PATH < src/main.go; ls", askV},
		{[]string{"Bash(git *)"}, nil, "for PATH in .; do git status; done", askV},
		{[]string{"Bash(git *)"}, nil, "for GIT_DIR in x; do git status; done", askV},
		{[]string{"Bash(git *)"}, nil, "printf -v PATH .; git status", askV},
		{[]string{"Bash(git *)", "Bash(set *)"}, nil, "set -a; git status", askV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "for HOME in .; do git diff; done", denyV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "for PATH in .; do ls; done", denyV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "shopt -s expand_aliases; ls", denyV},
		// Harmless loop variables keep working.
		{nil, nil, "for plyloopvar in a b; do echo $plyloopvar; done", allowV},
		{[]string{"Bash(git *)"}, nil, "for plyloopvar in a b; do git status; done", allowV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "for plyloopvar in a b; do ls; done", allowV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "set -euo pipefail; ls", allowV},
	}
	for _, tt := range tests {
		p := newPolicy(t, root, ModeDefault, tt.allow, nil, tt.deny)
		if v, reason := p.Check(context.Background(), shellCall(t, tt.cmd)); v != tt.want {
			t.Errorf("allow %v deny %v: %q = %s (%s), want %s", tt.allow, tt.deny, tt.cmd, verdictName(v), reason, verdictName(tt.want))
		}
	}
}

// Oversized commands reach the policy without crashing it, and fail
// closed: asked without rules, denied by any deny rule.
func TestOversizedCommandsFailClosed(t *testing.T) {
	root, _ := testWorkspace(t)
	for _, cmd := range []string{
		strings.Repeat("(", 250000),
		"ls " + strings.Repeat("a", 70000),
	} {
		p := newPolicy(t, root, ModeDefault, []string{"Bash(ls *)"}, nil, nil)
		if v, reason := p.Check(context.Background(), shellCall(t, cmd)); v != askV {
			t.Errorf("%.20q... = %s (%s), want ask", cmd, verdictName(v), reason)
		}
		p = newPolicy(t, root, ModeDefault, []string{"Bash"}, nil, []string{"Bash(rm *)"})
		if v, reason := p.Check(context.Background(), shellCall(t, cmd)); v != denyV {
			t.Errorf("%.20q... with a deny rule = %s (%s), want deny", cmd, verdictName(v), reason)
		} else if !strings.Contains(reason, "limit") {
			t.Errorf("reason %q does not name the limit", reason)
		}
	}
}

// A committed link to /proc does not let a glob read ply's environment.
func TestGlobThroughLinkToProcIsAsked(t *testing.T) {
	root, _ := testWorkspace(t)
	link(t, "/proc", root+"/p")
	p := newPolicy(t, root, ModeDefault, nil, nil, nil)
	for _, cmd := range []string{"cat [p]/[0-9]*/environ", "cat p/self/environ", "cat src/outd?r/target.txt"} {
		if v, reason := p.Check(context.Background(), shellCall(t, cmd)); v != askV {
			t.Errorf("%q = %s (%s), want ask", cmd, verdictName(v), reason)
		}
	}
	if _, err := os.Stat(root + "/src/main.go"); err != nil {
		t.Fatal(err)
	}
	if v, reason := p.Check(context.Background(), shellCall(t, "cat src/*.go")); v != allowV {
		t.Errorf("cat src/*.go = %s (%s), want allow", verdictName(v), reason)
	}
}

// Other ways to change what later commands mean stay visible to the
// rules or fail closed: a function named like a program is seen through
// its body, a descriptor opened by exec is no read-only command, and
// aliases need an alias definition or shopt, both opaque.
func TestShellStateChangesFailClosed(t *testing.T) {
	root, _ := testWorkspace(t)
	tests := []struct {
		allow, deny []string
		cmd         string
		want        scheduler.Verdict
	}{
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "ls() { rm F; }; ls", denyV},
		{[]string{"Bash(ls *)"}, nil, "ls() { rm F; }; ls", askV},
		{nil, nil, "ls() { cat /etc/passwd; }; ls", askV},
		{nil, nil, "exec 3</etc/passwd; cat <&3", askV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "shopt -s expand_aliases; alias ls=rm; ls F", denyV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "enable -n echo; echo x", denyV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "set -k; ls LD_PRELOAD=./x.so", denyV},
		{[]string{"Bash"}, []string{"Bash(rm *)"}, "trap 'for PATH in .; do ls; done' EXIT", denyV},
	}
	for _, tt := range tests {
		p := newPolicy(t, root, ModeDefault, tt.allow, nil, tt.deny)
		if v, reason := p.Check(context.Background(), shellCall(t, tt.cmd)); v != tt.want {
			t.Errorf("allow %v deny %v: %q = %s (%s), want %s", tt.allow, tt.deny, tt.cmd, verdictName(v), reason, verdictName(tt.want))
		}
	}
}
