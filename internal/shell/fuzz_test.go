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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// The scheduler classifies commands inline: a hang is as bad as a
		// panic. A timer panic kills the worker, and the fuzzer keeps the input.
		wd := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("classifier hangs on %q", cmd)) })
		defer wd.Stop()
		ro := IsReadOnly(cmd)
		scs, scErr := SimpleCommands(cmd)
		if _, err := parse(cmd); err != nil && ro {
			t.Fatalf("IsReadOnly(%q) = true for input that does not parse: %v", cmd, err)
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
