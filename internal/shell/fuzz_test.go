package shell

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func commandWords(f *syntax.File) []*syntax.Word {
	return f.Stmts[0].Cmd.(*syntax.CallExpr).Args
}

// FuzzIsReadOnly checks the two promises that hold for any input: the
// classifier never panics, and it never calls read-only what the parser
// rejects. SimpleCommands is exercised on the same input for panics.
func FuzzIsReadOnly(f *testing.F) {
	for _, s := range []string{
		"ls -la", "git log | head", "cat a > b", "echo $(rm x)", "find . -delete",
		"sed -n 's/a/b/w x' f", "cat <<EOF\n$(ls)\nEOF", "[[ 1 -eq 1 ]]", "for f in *; do cat $f; done",
		"git -C d branch --list 'x*'", "echo \"unterminated", "uniq -f 1 a", "date -d now +%s",
		"printenv K 1</dev/tcp/127.0.0.1/1", "cat F 3</dev/udp/h/1 >&3", "echo $(cat F 3</dev/tcp/h/1 >&3)",
		"cat /etc/passwd", "head ~/.ssh/id_rsa", "cat ../../x", "cd .. && cat x", "grep -R k .",
		"git diff --no-index a b", "git --config-env=a=B log", "R=rm; $R F", "echo 'rm F' | bash",
		"sh -c 'exec \"$0\" \"$1\"' rm F", "source <(echo rm F)", "x='a[$(rm F)]'; echo $((x))",
		"for PATH in .; do ls; done", "for f in a b; do echo $f; done", "select HOME in .; do git diff; done",
		"declare -n r=PATH; for r in .; do ls; done", "export X=1; ls", "echo ${PATH:=.}", "ls {HOME}>/dev/null",
		"read -r PATH < f; ls", "printf -v PATH .; ls", "cat ln?/secret", "sed -n 'r lnk/x' f", "cd ssh && ls",
		"( ( ( ls ) ) )", "set -a; for x in y; do ls; done",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// The scheduler classifies commands inline: a hang is as bad as a
		// panic. A timer panic kills the worker, and the fuzzer keeps the input.
		wd := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("classifier hangs on %q", cmd)) })
		defer wd.Stop()
		ro := IsReadOnly(cmd)
		roIn := IsReadOnlyIn(cmd, []string{fuzzRoot}, fuzzRoot)
		reason, opaque := Opaque(cmd)
		scs, scErr := SimpleCommands(cmd)
		if _, err := parse(cmd); err != nil && (ro || roIn || !opaque) {
			t.Fatalf("IsReadOnly(%q) = %v, IsReadOnlyIn %v, Opaque %v for input that does not parse: %v", cmd, ro, roIn, opaque, err)
		}
		if opaque && (ro || roIn || reason == "") {
			t.Fatalf("Opaque(%q) = %q, but IsReadOnly %v, IsReadOnlyIn %v", cmd, reason, ro, roIn)
		}
		if roIn && scErr == nil {
			checkStaysInside(t, cmd, scs)
		}
		if f, err := parse(cmd); err == nil {
			if what, name, ok := hiddenAssignment(f); ok && (ro || roIn || !opaque) {
				t.Fatalf("%q: %s assigns %q, but IsReadOnly %v, IsReadOnlyIn %v, Opaque %v", cmd, what, name, ro, roIn, opaque)
			}
		}
		// The two walkers must agree: a command IsReadOnly accepted holds
		// only known programs, wherever SimpleCommands finds them. A gap
		// in either walk shows up here.
		if !ro || scErr != nil {
			return
		}
		for _, sc := range scs {
			if len(sc.Args) > 0 && commands[sc.Args[0]] == nil {
				t.Fatalf("IsReadOnly(%q) = true, but it runs %q", cmd, sc.Args)
			}
			for _, e := range sc.Env {
				if name, _, _ := strings.Cut(e, "="); !harmlessEnv[name] {
					t.Fatalf("IsReadOnly(%q) = true, but it assigns %q", cmd, e)
				}
			}
		}
	})
}

// hiddenAssignment finds, independently of the classifier's walk, a
// construct that assigns a variable rules cannot see (a for or select
// loop, declare and its kin, ${x:=y}, {x}>file, read, printf -v) whose
// name is not a plain lower-case name. Each must make the line opaque.
func hiddenAssignment(f *syntax.File) (what, name string, found bool) {
	unproven := func(n string) bool {
		return n == "" || strings.ContainsFunc(n, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '_' || r >= '0' && r <= '9') })
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok && unproven(it.Name.Value) {
				what, name, found = "a loop", it.Name.Value, true
			}
		case *syntax.DeclClause:
			for _, as := range x.Args {
				if as.Naked && as.Name == nil {
					return true // an option: -f names functions, not variables
				}
			}
			for _, as := range x.Args {
				if as.Name != nil && unproven(as.Name.Value) {
					what, name, found = x.Variant.Value, as.Name.Value, true
				}
			}
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) &&
				x.Param != nil && unproven(x.Param.Value) {
				what, name, found = "${x:=y}", x.Param.Value, true
			}
		case *syntax.Redirect:
			if x.N != nil && strings.HasPrefix(x.N.Value, "{") && unproven(strings.Trim(x.N.Value, "{}")) {
				what, name, found = "{x}>", x.N.Value, true
			}
		case *syntax.CallExpr:
			if len(x.Args) < 2 {
				break
			}
			prog, arg := analyze(x.Args[0]), analyze(x.Args[len(x.Args)-1])
			switch {
			case !prog.exact || !arg.exact:
			case prog.text == "read" && !strings.HasPrefix(arg.text, "-") && unproven(arg.text):
				what, name, found = "read", arg.text, true
			case prog.text == "printf" && len(x.Args) > 2 && analyze(x.Args[1]).text == "-v":
				if n := analyze(x.Args[2]); n.exact && unproven(n.text) {
					what, name, found = "printf -v", n.text, true
				}
			}
		}
		return !found
	})
	return what, name, found
}

// fuzzRoot is a workspace root that does not exist, so that nothing on
// the fuzzing machine's file system can be inside it.
const fuzzRoot = "/nonexistent-ply-fuzz-root"

// checkStaysInside checks what IsReadOnlyIn promises of a command it
// accepted: no redirection to a device but the null device and the
// standard streams, and no absolute path outside the root among the
// operands of programs that read the files they are given.
func checkStaysInside(t *testing.T, cmd string, scs []SimpleCommand) {
	t.Helper()
	for _, sc := range scs {
		for _, r := range sc.Redirects {
			target := strings.TrimLeft(strings.TrimLeft(r, "0123456789"), "<>&|")
			if strings.HasPrefix(target, "/") && !harmlessDevice(target) {
				t.Fatalf("IsReadOnlyIn(%q) = true, but it redirects %q", cmd, r)
			}
		}
		if len(sc.Args) == 0 {
			continue
		}
		switch sc.Args[0] {
		case "cat", "head", "tail", "ls", "wc", "stat", "du", "file", "cmp":
		default:
			continue
		}
		for _, a := range sc.Args[1:] {
			if strings.HasPrefix(a, "/") && !harmlessDevice(a) && !strings.HasPrefix(a, fuzzRoot+"/") {
				t.Fatalf("IsReadOnlyIn(%q) = true, but %s reads %q", cmd, sc.Args[0], a)
			}
		}
	}
}

var sink bool

func BenchmarkIsReadOnly(b *testing.B) {
	for _, bc := range []struct{ name, cmd string }{
		{"simple", "ls -la"},
		{"pipeline", "git log --oneline -20 | grep fix | head -5"},
		{"rejected", "find . -name '*.go' -exec rm {} \\;"},
		{"compound", "if [ -f go.mod ]; then sed -n '1,5p' go.mod; else ls 2>/dev/null; fi"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = IsReadOnly(bc.cmd)
			}
		})
	}
}

func BenchmarkIsReadOnlyIn(b *testing.B) {
	root := b.TempDir()
	for _, bc := range []struct{ name, cmd string }{
		{"simple", "ls -la"},
		{"paths", "cat src/a.go src/b.go | grep -n func | head"},
		{"outside", "cat /etc/passwd"},
		{"git", "git log --oneline -20 | grep fix | head -5"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = IsReadOnlyIn(bc.cmd, []string{root}, root)
			}
		})
	}
}

func BenchmarkOpaque(b *testing.B) {
	for _, bc := range []struct{ name, cmd string }{
		{"plain", "git log --oneline -20 | grep fix | head -5"},
		{"nested", "sudo nice xargs sh -c 'find . -exec grep -l x {} +'"},
		{"opaque", "R=rm; $R F"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, sink = Opaque(bc.cmd)
			}
		})
	}
}
