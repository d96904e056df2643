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
