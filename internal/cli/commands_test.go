package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// leaf is a runnable command of the table with the words that name it.
type leaf struct {
	path []string // "mcp", "add"
	cmd  *command
}

// leaves walks cs and returns its runnable commands, those of groups
// included.
func leaves(t *testing.T, cs []*command, path []string) []leaf {
	t.Helper()
	var out []leaf
	for _, c := range cs {
		p := append(slices.Clone(path), c.name)
		if c.subs != nil {
			out = append(out, leaves(t, c.subs, p)...)
		} else {
			out = append(out, leaf{p, c})
		}
	}
	return out
}

// Every entry of the table is complete: a command has its synopses,
// help lines and run; a group has commands and no run of its own; no
// two siblings share a name.
func TestCommandTable(t *testing.T) {
	var check func(cs []*command, path string)
	check = func(cs []*command, path string) {
		seen := map[string]bool{}
		for _, c := range cs {
			full := path + " " + c.name
			for _, n := range append([]string{c.name}, c.aliases...) {
				if n == "" || strings.HasPrefix(n, "-") || n == "help" || seen[n] {
					t.Errorf("%s: name %q is empty, a flag, help or taken", full, n)
				}
				seen[n] = true
			}
			if len(c.usage) == 0 || strings.TrimSpace(c.long) == "" {
				t.Errorf("%s: no usage or long help", full)
			}
			for _, u := range c.usage {
				if u != full && !strings.HasPrefix(u, full+" ") {
					t.Errorf("%s: synopsis %q does not start with the command", full, u)
				}
			}
			if c.subs != nil {
				if c.run != nil || c.short != "" {
					t.Errorf("%s: a group has a run or a short help, which nothing would use", full)
				}
				check(c.subs, full)
				continue
			}
			if c.run == nil || c.short == "" || strings.Contains(c.short, "\n") {
				t.Errorf("%s: no run, or no one-line short help", full)
			}
		}
	}
	check(commands(), "ply")
}

// Each command of the table, by its name and by each alias, runs its own
// run with the arguments after its name, and answers --help with its
// synopses and long help; ply --help lists every synopsis with its short
// help.
func TestEveryCommandDispatches(t *testing.T) {
	cs := commands()
	var ran *command
	var got []string
	ls := leaves(t, cs, nil)
	for _, l := range ls {
		c := l.cmd
		c.run = func(_ context.Context, args []string, _ IO) int {
			ran, got = c, args
			return 7
		}
	}
	top := usage()
	for _, l := range ls {
		name := strings.Join(l.path, " ")
		for _, alias := range append([]string{l.cmd.name}, l.cmd.aliases...) {
			words := append(slices.Clone(l.path[:len(l.path)-1]), alias)
			ran, got = nil, nil
			args := append(slices.Clone(words), "x", "--y")
			code, ok := runCommand(context.Background(), cs, args, IO{Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer)})
			if !ok || code != 7 || ran != l.cmd || !slices.Equal(got, []string{"x", "--y"}) {
				t.Errorf("ply %s: ran its own run %v with %q, exit %d (ok %v); want its own run with [x --y]",
					strings.Join(args, " "), ran == l.cmd, got, code, ok)
			}
		}
		var out bytes.Buffer
		ran = nil
		code, ok := runCommand(context.Background(), cs, append(slices.Clone(l.path), "--help"), IO{Stdout: &out, Stderr: new(bytes.Buffer)})
		if !ok || code != 0 || ran != nil {
			t.Errorf("ply %s --help: exit %d (ok %v), ran the command %v; want its help", name, code, ok, ran != nil)
		}
		for _, u := range l.cmd.usage {
			if !strings.Contains(out.String(), u) {
				t.Errorf("ply %s --help lacks %q:\n%s", name, u, out.String())
			}
			if !strings.Contains(top, "\n  "+u+"\n") {
				t.Errorf("ply --help lacks %q", u)
			}
		}
		if !strings.Contains(top, "\n      "+l.cmd.short+"\n") {
			t.Errorf("ply --help lacks the help of ply %s: %q", name, l.cmd.short)
		}
	}
}

// What is not a command stays what it was: a prompt, a flag, or the
// user's own word where a command takes one. A group with no command, or
// an unknown one, is a usage error.
func TestCommandDispatchEdges(t *testing.T) {
	cs := commands()
	var got []string
	for _, l := range leaves(t, cs, nil) {
		l.cmd.run = func(_ context.Context, args []string, _ IO) int { got = args; return 7 }
	}
	run := func(args ...string) (int, bool, string, string) {
		var out, errb bytes.Buffer
		got = nil
		code, ok := runCommand(context.Background(), cs, args, IO{Stdout: &out, Stderr: &errb})
		return code, ok, out.String(), errb.String()
	}
	for _, args := range [][]string{{}, {"fix", "the", "bug"}, {"help", "mcp"}, {"--help"}, {"-p", "mcp"}, {"Sessions"}} {
		if code, ok, _, _ := run(args...); ok {
			t.Errorf("ply %q: ran a command (exit %d); want it left to the flags and the prompt", args, code)
		}
	}
	// A folder or a server may be called help.
	for _, args := range [][]string{{"trust", "help"}, {"mcp", "remove", "help"}, {"mcp", "login", "help"}} {
		if code, ok, _, _ := run(args...); !ok || code != 7 || !slices.Equal(got, []string{"help"}) {
			t.Errorf("ply %q: exit %d, ran with %q; want the command run on the word help", args, code, got)
		}
	}
	for _, args := range [][]string{{"help"}, {"sessions", "help"}, {"rewind", "help"}, {"mcp", "help"}, {"mcp", "-h"}} {
		if code, ok, out, _ := run(args...); !ok || code != 0 || got != nil || !strings.HasPrefix(out, "usage: ply") && !strings.HasPrefix(out, "ply —") {
			t.Errorf("ply %q: exit %d, stdout %q; want its help", args, code, out)
		}
	}
	for _, args := range [][]string{{"mcp"}, {"mcp", "lst"}, {"mcp", "--mcp-config", "{}"}} {
		code, ok, _, errs := run(args...)
		if !ok || code != 42 || got != nil || !strings.Contains(errs, "usage: ply mcp list") || !strings.Contains(errs, "ply mcp logout NAME") {
			t.Errorf("ply %q: exit %d, stderr %q; want 42 and the synopses of mcp's commands", args, code, errs)
		}
	}
}
