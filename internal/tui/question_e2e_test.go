package tui_test

import (
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxAskUserQuestion: the model asks a question mid-task; the dialog
// shows it with its options in the terminal, the user picks one with a
// digit and the choice goes back to the model as the tool's result, with
// no approval dialog in front of it.
func TestTmuxAskUserQuestion(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	question := args(map[string]any{"questions": []map[string]any{{
		"question": "Which database should the tests use?", "header": "Database", "multiSelect": false,
		"options": []map[string]string{{"label": "Postgres", "description": "what production runs"}, {"label": "SQLite", "description": "no server to start"}},
	}}})
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_q", "ask_user_question", question)},
		fp.Turn{fp.Text("using SQLite then")},
	)
	for _, width := range []int{80, 120} {
		if width == 120 {
			srv.Append(fp.Turn{fp.ToolCall("call_q2", "ask_user_question", question)}, fp.Turn{fp.Text("using SQLite then")})
		}
		x := startPly(t, bin, t.TempDir(), srv, width, 24, []string{"NO_COLOR=1"}, "--approval-mode", "default")
		x.waitFor("test-model · default mode")
		x.submit("set up the tests")
		s := x.waitFor("Which database should the tests use?")
		if !strings.Contains(s, "1. Postgres") || !strings.Contains(s, "2. SQLite") || !strings.Contains(s, "3. Other") || strings.Contains(s, "Allow ask_user_question") {
			t.Fatalf("%d columns: the question dialog is not as expected:\n%s", width, s)
		}
		x.run("send-keys", "-t", "ply", "-l", "2")
		x.waitFor("using SQLite then")
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for _, i := range []int{1, 3} {
		if raw := string(reqs[i].Raw); !strings.Contains(raw, `\"Which database should the tests use?\": \"SQLite\"`) {
			t.Fatalf("request %d does not carry the answer:\n%s", i, raw)
		}
	}
}
