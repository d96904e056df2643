package cli

import (
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// The session's caps count a subagent's work: its tool calls and rounds
// are the session's, and a subagent that runs into a cap ends the run
// with that cap's subtype and exit code.
func TestCapsCountSubagentWork(t *testing.T) {
	delegate := fp.Turn{fp.ToolCall("a1", "agent", `{"description":"look around","prompt":"list the files, three times","subagent_type":"general-purpose"}`)}
	subCalls := func(n int) []fp.Turn {
		var ts []fp.Turn
		for i := range n {
			ts = append(ts, fp.Turn{fp.When(isSubagent), fp.ToolCall("s"+string(rune('a'+i)), "list_directory", `{"path":"."}`)})
		}
		return ts
	}
	for _, c := range []struct {
		name, flag, subtype string
		code                int
	}{
		{"tool calls", "--max-tool-calls", "error_max_tool_calls", 55},
		{"session turns", "--max-session-turns", "error_max_turns", 53},
	} {
		t.Run(c.name, func(t *testing.T) {
			turns := append([]fp.Turn{delegate}, subCalls(4)...)
			turns = append(turns, fp.Turn{fp.When(isSubagent), fp.Text("done looking")}, fp.Turn{fp.Text("all done")})
			srv := fp.New(t, turns...)
			r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "json", c.flag, "3", "-p", "go")
			if r.code != c.code || !strings.Contains(r.stdout, `"subtype":"`+c.subtype+`"`) {
				t.Fatalf("exit %d (want %d), out %s\nstderr %s", r.code, c.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "subagents") {
				t.Errorf("the result does not say subagents' work counted: %s", r.stdout)
			}
		})
	}
}
