package permission

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// Issue 15: deny rules fail closed. Each command runs rm, one way or
// another, and Bash(rm *) must deny it in every mode.
func TestDenyRuleCatchesUnresolvableCommands(t *testing.T) {
	root, _ := testWorkspace(t)
	commands := []string{
		// From the issue.
		"R=rm; $R F",
		"$(echo rm) F",
		"`echo rm` F",
		"rm$IFS/F",
		"coproc rm F",
		"echo 'rm F' | bash",
		"bash <<< 'rm F'",
		"source <(echo rm F)",
		". <(echo rm F)",
		`sh -c 'exec "$0" "$1"' rm F`,
		// Literal scripts are looked into.
		"bash -c 'rm F'",
		"bash -e -c 'rm F'",
		"bash -c -e 'rm F'",
		"sh -xc 'rm F'",
		"eval 'rm F'",
		"env -S 'rm F'",
		"trap 'rm F' EXIT",
		"trap -- 'rm F' EXIT",
		"toybox rm F",
		// Wrappers, paths and quoting.
		"command rm F",
		"builtin rm F",
		"nice rm F",
		"nice -n 5 rm F",
		"timeout 1 rm F",
		"xargs rm",
		"echo F | xargs -0 rm",
		"env rm F",
		"env A=1 rm F",
		"sudo rm F",
		"sudo -u bob rm F",
		"exec rm F",
		"/bin/rm F",
		`\rm F`,
		`"rm" F`,
		"'rm' F",
		"find . -exec rm {} +",
		"busybox rm F",
		"sudo -u a -g b -E -H -n -k -S -p x rm F",
		"fish -c 'rm F'",
		// Other ways to hide the name.
		"bash <<EOF\nrm F\nEOF",
		"cat s | sh",
		"bash <(echo rm F)",
		"x='a[$(rm F)]'; echo $((x))",
		"alias x=rm",
		"hash -p /bin/rm ls; ls F",
		"{rm,x} F",
		"r? F",
		// xargs and find fill in what runs.
		"echo 'rm F' | xargs sh -c",
		"echo 'rm F' | xargs -I{} sh -c '{}'",
		"echo rm | xargs -I X X F",
		"find . -exec sh -c \"$X\" \\;",
		// Deeper than the rules look, or past their budget.
		"nice nice nice nice rm F",
		"bash -c \"bash -c 'bash -c \\\"bash -c rm\\\"'\"",
		strings.Repeat("nice nice nice nice nice nice x; ", 30) + "sudo rm F",
	}
	for _, mode := range []Mode{ModeDefault, ModeYOLO} {
		p := newPolicy(t, root, mode, []string{"Bash"}, nil, []string{"Bash(rm *)"})
		for _, cmd := range commands {
			v, reason := p.Check(context.Background(), shellCall(t, cmd))
			if v != denyV {
				t.Errorf("%s: %q = %s (%s), want deny", mode, cmd, verdictName(v), reason)
			}
		}
	}
	// An ask rule fails closed the same way.
	p := newPolicy(t, root, ModeYOLO, nil, []string{"Bash(rm *)"}, nil)
	if v, reason := p.Check(context.Background(), shellCall(t, "R=rm; $R F")); v != askV {
		t.Errorf("ask rule: %s (%s), want ask", verdictName(v), reason)
	}
	// The reason says why a rule about rm caught a command without rm.
	p = newPolicy(t, root, ModeDefault, nil, nil, []string{"Bash(rm *)"})
	_, reason := p.Check(context.Background(), shellCall(t, "$(echo ls) F"))
	if !strings.Contains(reason, "known only at run time") {
		t.Errorf("reason %q does not say the program is known only at run time", reason)
	}
	// Commands that are resolvable and run no rm pass.
	for _, cmd := range []string{"ls $HOME", "echo $(git rev-parse HEAD)", "sh build.sh", "bash -c 'ls'"} {
		if v, reason := p.Check(context.Background(), shellCall(t, cmd)); v == denyV {
			t.Errorf("%q denied: %s", cmd, reason)
		}
	}
}

// An opaque command is never covered by an allow rule, even one naming
// its first program, nor auto-approved.
func TestOpaqueCommandsAreNotAllowed(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, []string{"Bash(echo *)", "Bash(bash *)", "Bash(sh *)", "Bash(source *)"}, nil, nil)
	for _, cmd := range []string{
		"echo 'rm F' | bash", "bash <<< 'rm F'", `sh -c 'exec "$0" "$1"' rm F`, "bash -c \"$X\"",
		"source /dev/stdin", "echo ${x@P}",
	} {
		if v, reason := p.Check(context.Background(), shellCall(t, cmd)); v != askV {
			t.Errorf("%q = %s (%s), want ask", cmd, verdictName(v), reason)
		}
	}
	if v, reason := p.Check(context.Background(), shellCall(t, "bash -c 'make'")); v != allowV {
		t.Errorf("bash -c 'make' with Bash(bash *) = %s (%s), want allow", verdictName(v), reason)
	}
}

func TestGitPrefixRuleDoesNotCoverConfiguration(t *testing.T) {
	root, _ := testWorkspace(t)
	tests := []struct {
		allow []string
		cmd   string
		want  scheduler.Verdict
	}{
		{[]string{"Bash(git *)"}, "git commit -m x", allowV},
		{[]string{"Bash(git *)"}, "git config --get user.name", allowV},
		{[]string{"Bash(git *)"}, "git -c core.pager=x log", askV},
		{[]string{"Bash(git *)"}, "git -c alias.x='!rm F' x", askV},
		{[]string{"Bash(git *)"}, "git --config-env=core.pager=X log", askV},
		{[]string{"Bash(git *)"}, "git --exec-path=. status", askV},
		{[]string{"Bash(git *)"}, "git config user.name x", askV},
		{[]string{"Bash(git *)"}, "git config --add alias.x '!rm F'", askV},
		{[]string{"Bash(git *)"}, "git -C testdata/x.git diff", askV},
		{[]string{"Bash(git *)"}, "git --git-dir=x.git log", askV},
		{[]string{"Bash(git:*)"}, "git -c core.pager=x log", askV},
		{[]string{"Bash(git -c *)"}, "git -c core.pager=x log", allowV},
		{[]string{"Bash(git config *)"}, "git config user.name x", allowV},
		{[]string{"Bash(git --config-env*)"}, "git --config-env=a=B log", allowV},
		{[]string{"Bash(git -C *)"}, "git -C sub commit -m x", allowV},
	}
	for _, tt := range tests {
		p := newPolicy(t, root, ModeDefault, tt.allow, nil, nil)
		if v, reason := p.Check(context.Background(), shellCall(t, tt.cmd)); v != tt.want {
			t.Errorf("%v: %q = %s (%s), want %s", tt.allow, tt.cmd, verdictName(v), reason, verdictName(tt.want))
		}
	}
}

func TestReadOnlyShellStaysInTheWorkspace(t *testing.T) {
	root, outside := testWorkspace(t)
	tests := []struct {
		cmd, dir string
		allow    []string
		want     scheduler.Verdict
	}{
		{cmd: "cat " + filepath.Join(outside, "target.txt"), want: askV},
		{cmd: "cat ../outside/target.txt", want: askV},
		{cmd: "head ~/.ssh/id_rsa", want: askV},
		{cmd: "cat src/out.txt", want: askV}, // a link to outside
		{cmd: "cat src/outdir/target.txt", want: askV},
		{cmd: "printenv OPENAI_API_KEY 1</dev/tcp/127.0.0.1/9", want: askV},
		{cmd: "cat F 3</dev/tcp/127.0.0.1/9 >&3", want: askV},
		{cmd: "git -C some/dir diff --no-index a b", want: askV},
		{cmd: "cat src/main.go", want: allowV},
		{cmd: "cat ../README.md", dir: "src", want: allowV},
		{cmd: "cat ../../outside/target.txt", dir: "src", want: askV},
		{cmd: "ls", dir: "../outside", want: askV},
		{cmd: "cat ../outside/target.txt && npm test", allow: []string{"Bash(npm test)"}, want: askV},
		{cmd: "cat src/out.txt && npm test", allow: []string{"Bash(npm test)"}, want: askV},
		{cmd: "cat src/main.go && npm test", allow: []string{"Bash(npm test)"}, want: allowV},
	}
	for _, tt := range tests {
		p := newPolicy(t, root, ModeDefault, tt.allow, nil, nil)
		a := args{"command": tt.cmd}
		if tt.dir != "" {
			a["directory"] = tt.dir
		}
		if v, reason := p.Check(context.Background(), call(t, ToolShell, a)); v != tt.want {
			t.Errorf("%q in %q = %s (%s), want %s", tt.cmd, tt.dir, verdictName(v), reason, verdictName(tt.want))
		}
	}
}
