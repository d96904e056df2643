package cli

import (
	"strings"
	"testing"
)

// `ply help` and `ply <command> --help` print usage and exit 0, instead
// of sending "help" to the model or failing.
func TestSubcommandHelp(t *testing.T) {
	for _, args := range [][]string{
		{"help"}, {"sessions", "--help"}, {"rewind", "--help"}, {"mcp", "-h"}, {"trust", "--help"}, {"sessions", "help"},
	} {
		r := runPly(t, t.TempDir(), nil, "", args...)
		if r.code != 0 || !strings.Contains(strings.ToLower(r.stdout), "usage") {
			t.Errorf("ply %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// Every subcommand, the mcp ones included, is in ply --help, answers
// --help with its own usage, and ply mcp --help lists mcp's.
func TestHelpListsEveryCommand(t *testing.T) {
	all := []string{"sessions", "rewind", "trust", "version", "mcp list", "mcp add", "mcp remove", "mcp login", "mcp logout"}
	top := runPly(t, t.TempDir(), nil, "", "--help")
	group := runPly(t, t.TempDir(), nil, "", "mcp", "--help")
	for _, name := range all {
		if !strings.Contains(top.stdout, "\n  ply "+name+" ") && !strings.Contains(top.stdout, "\n  ply "+name+"\n") {
			t.Errorf("ply --help does not list ply %s", name)
		}
		if strings.HasPrefix(name, "mcp ") && !strings.Contains(group.stdout, "ply "+name) {
			t.Errorf("ply mcp --help does not list ply %s:\n%s", name, group.stdout)
		}
		args := append(strings.Fields(name), "--help")
		r := runPly(t, t.TempDir(), nil, "", args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: ply "+name) {
			t.Errorf("ply %s --help: exit %d, stdout %q, stderr %q; want its usage", name, r.code, r.stdout, r.stderr)
		}
	}
}
