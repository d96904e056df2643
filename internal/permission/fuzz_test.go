package permission

import (
	"path"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/shell"
	"github.com/plyhq/ply/internal/tools"
)

// FuzzParseRule checks that no rule text panics the parser or, once
// parsed, the matchers, and that a parsed rule's text parses again to the
// same tool.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"Bash(git *)", "Bash(npm run test:*)", "Bash(git status)", `Bash(echo "a b" 'c' \*)`,
		"Read(.env)", "Read(**/*.key)", "Edit(/src/**)", "Edit(//etc/**)", "Read(~/.ssh/**)",
		"WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)", "mcp__gh", "mcp__gh__*",
		"mcp__gh__issue", "ReadFileTool", "Bash(", "Bash())", "(x)", "Read({a,b}/[c-d]*)", "Bash(ls*)",
		"Bash(* * *)", "Read(~)", "Read(//)", "Bash(:*)", "Bash(a:*:*)",
	} {
		f.Add(s, "git status && rm -rf $HOME", "src/../.env")
	}
	root := f.TempDir()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	p, err := New(Config{Workspace: ws, HomeDir: root, ReadOnlyProfile: profileAvailable})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text, command, path string) {
		r, err := ParseRule(text)
		if err != nil {
			if _, ok := err.(*RuleError); !ok {
				t.Fatalf("ParseRule(%q) error %T is not a *RuleError", text, err)
			}
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again.Tool() != r.Tool() {
			t.Fatalf("%q parsed, but its String %q gives %v, %v", text, r.String(), again.Tool(), err)
		}
		for _, name := range []string{r.Tool(), ToolShell, ToolReadFile, ToolEdit, ToolWebFetch} {
			ci := &callInfo{name: name, argsOK: true, args: callArgs{Command: command, FilePath: path, URL: path}}
			rules := []sourced{{r, "fuzz"}}
			p.catch(rules, ci)
			p.permit(rules, ci)
		}
	})
}

// FuzzShellRulesFailClosed checks the promises rules make about any
// command line: a deny rule catches every command that runs its program
// visibly or that is opaque; an opaque command is never allowed; and what
// the default mode runs without asking is read-only inside the workspace.
func FuzzShellRulesFailClosed(f *testing.F) {
	for _, s := range []string{
		"rm F", "R=rm; $R F", "$(echo rm) F", "`echo rm` F", "rm$IFS/F", "coproc rm F",
		"echo 'rm F' | bash", "bash <<< 'rm F'", "source <(echo rm F)", `sh -c 'exec "$0" "$1"' rm F`,
		"bash -c 'rm F'", "sudo -u x rm F", "nice nice nice nice rm F", "git -c a=b log", "cat ../x",
		"printenv K 1</dev/tcp/127.0.0.1/1", "git status && echo ok", "ls | xargs rm",
	} {
		f.Add(s)
	}
	root := f.TempDir()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	policy := func(allow, deny []string) *Policy {
		p, err := New(Config{Workspace: ws, HomeDir: root, ReadOnlyProfile: profileAvailable, Settings: []RuleSet{{Allow: allow, Deny: deny}}})
		if err != nil {
			f.Fatal(err)
		}
		return p
	}
	denyRm := policy([]string{"Bash"}, []string{"Bash(rm *)"})
	allowSome := policy([]string{"Bash(echo *)", "Bash(bash *)", "Bash(sh *)", "Bash(git *)", "Bash(xargs *)"}, nil)
	plain := policy(nil, nil)
	f.Fuzz(func(t *testing.T, command string) {
		check := func(p *Policy) decision {
			return p.decide(&callInfo{name: ToolShell, kind: tools.KindExecute, argsOK: true, args: callArgs{Command: command}})
		}
		_, opaque := shell.Opaque(command)
		runsRm := opaque
		if cmds, err := shell.SimpleCommands(command); err == nil {
			for _, sc := range cmds {
				if len(sc.Args) > 0 && path.Base(sc.Args[0]) == "rm" {
					runsRm = true
				}
			}
		}
		if d := check(denyRm); runsRm && d.verdict != scheduler.VerdictDeny {
			t.Fatalf("%q runs rm or is opaque (%v), but Bash(rm *) gives %v: %s", command, opaque, d.verdict, d.reason)
		}
		if d := check(allowSome); opaque && d.verdict == scheduler.VerdictAllow {
			t.Fatalf("opaque %q allowed: %s", command, d.reason)
		}
		if d := check(plain); d.verdict == scheduler.VerdictAllow &&
			(opaque || !shell.IsReadOnlyIn(command, ws.Roots(), ws.Root())) {
			t.Fatalf("%q allowed without a rule, but it is not read-only in the workspace: %s", command, d.reason)
		}
	})
}
