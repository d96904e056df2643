package permission

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

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
		"Bash(@workspace rm:*)", "Bash(@workspace)", "Bash(@workspacex y)",
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
		"for PATH in .; do git status; done", "for f in a; do git status; done", "read HOME < f; git diff",
		"declare -n r=PATH; for r in .; do ls; done", "echo ${PATH:=.}; ls", strings.Repeat("( ", 200) + "ls",
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
		// A hang is as bad as a panic: the policy decides inline. A timer
		// panic kills the worker, and the fuzzer keeps the input.
		wd := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("policy hangs on %q", command)) })
		defer wd.Stop()
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
		// A loop over a variable that is not a plain lower-case name may
		// change what every program of the line does: the line is opaque.
		if name, ok := upperLoopVariable(command); ok {
			if !opaque {
				t.Fatalf("%q assigns %s in a loop, but is not opaque", command, name)
			}
			if d := check(allowSome); d.verdict == scheduler.VerdictAllow {
				t.Fatalf("%q assigns %s in a loop, but is allowed: %s", command, name, d.reason)
			}
		}
	})
}

// upperLoopVariable returns the variable of a for or select loop of
// command whose name holds a character other than a lower-case letter, a
// digit or an underscore.
func upperLoopVariable(command string) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return "", false
	}
	var name string
	syntax.Walk(f, func(n syntax.Node) bool {
		if fc, ok := n.(*syntax.ForClause); ok && name == "" {
			if it, ok := fc.Loop.(*syntax.WordIter); ok && strings.ContainsFunc(it.Name.Value, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
			}) {
				name = it.Name.Value
			}
		}
		return name == ""
	})
	return name, name != ""
}

// FuzzDeniedPathNeverAllowed checks that a command naming a path under a
// deny path rule among its operands or redirections is never allowed, in
// any mode and whatever allow rules say.
func FuzzDeniedPathNeverAllowed(f *testing.F) {
	for _, s := range []string{
		"cat .env", "sed -n p .env", "grep -r PASSWORD .", "cat docs/.env", "cat < .env", "cd docs && cat .env",
		"sudo cat .env", "sh -c 'cat .env'", "git show HEAD:.env", "cat .e*", "echo .env", "cp .env x", "tar c .",
		"cat ./.env", "cat src/../.env", "head -c 10 -- .env", "grep -f .env x", "sort --output=.env x",
	} {
		f.Add(s)
	}
	root := f.TempDir()
	for _, d := range []string{"docs", "src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for _, name := range []string{".env", "docs/.env", "src/main.go"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("x"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	var policies []*Policy
	for _, mode := range []Mode{ModeDefault, ModeAutoEdit, ModeYOLO} {
		for _, allow := range [][]string{nil, {"Bash"}, {"Bash(cat *)", "Bash(git *)", "Bash(sed *)", "Bash(cp *)"}} {
			p, err := New(Config{Mode: mode, Workspace: ws, HomeDir: root, Settings: []RuleSet{{Allow: allow, Deny: []string{"Read(.env)"}}}})
			if err != nil {
				f.Fatal(err)
			}
			policies = append(policies, p)
		}
	}
	f.Fuzz(func(t *testing.T, command string) {
		cmds, err := shell.SimpleCommands(command)
		if err != nil {
			return
		}
		names := false
		for _, sc := range cmds {
			words := shell.PathOperands(sc.Args)
			for _, r := range sc.Redirects {
				if t, ok := redirectTarget(r); ok {
					words = append(words, t)
				}
			}
			for _, w := range words {
				// A relative word that stays below the working directory:
				// the rule is about the workspace.
				if path.Base(filepath.Clean(w)) == ".env" && filepath.IsLocal(w) && !strings.ContainsAny(w, "~") {
					names = true
				}
			}
		}
		if !names {
			return
		}
		for _, p := range policies {
			d := p.decide(&callInfo{name: ToolShell, kind: tools.KindExecute, argsOK: true, args: callArgs{Command: command}})
			if d.verdict == scheduler.VerdictAllow {
				t.Fatalf("%q names .env, denied by Read(.env), but mode %s allows it: %s", command, p.Mode(), d.reason)
			}
		}
	})
}

// FuzzWorkspaceScopedRule checks that Bash(@workspace rm:*) allows rm
// only with operands that stay strictly inside the workspace: relative,
// without .., not the root itself, not in .git, and with no tilde or
// glob left for the shell to expand.
func FuzzWorkspaceScopedRule(f *testing.F) {
	for _, s := range []string{
		"rm -rf build", "rm -rf /", "rm -rf ..", "rm -rf .", "rm x/../../y", "rm ~/x", "rm *", "rm .git/config",
		"cd .. && rm -rf ws", "rm -rf build && rm -rf /tmp", "rm --files0-from=/x", "rm -- -rf /",
	} {
		f.Add(s)
	}
	root := f.TempDir()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	p, err := New(Config{Workspace: ws, HomeDir: root, Settings: []RuleSet{{Allow: []string{"Bash(@workspace rm:*)"}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, command string) {
		d := p.decide(&callInfo{name: ToolShell, kind: tools.KindExecute, argsOK: true, args: callArgs{Command: command}})
		if d.verdict != scheduler.VerdictAllow || d.confine != tools.Unconfined {
			return
		}
		cmds, err := shell.SimpleCommands(command)
		if err != nil {
			t.Fatalf("%q allowed by a rule, but it is not literal: %s", command, d.reason)
		}
		for _, sc := range cmds {
			if len(sc.Args) == 0 || path.Base(sc.Args[0]) != "rm" {
				continue
			}
			for _, w := range shell.PathOperands(sc.Args) {
				if !filepath.IsLocal(w) || filepath.Clean(w) == "." || inGitDir(w) || strings.ContainsAny(w, "~*?[") {
					t.Fatalf("%q allowed (%s), but rm operand %q is not strictly inside the workspace", command, d.reason, w)
				}
			}
		}
	})
}
