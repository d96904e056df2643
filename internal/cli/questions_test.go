package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

var dbQuestion = mustJSON(map[string]any{"questions": []map[string]any{{
	"question": "Which database should the tests use?", "header": "Database", "multiSelect": false,
	"options": []map[string]string{{"label": "Postgres", "description": "what production runs"}, {"label": "SQLite", "description": "no server"}},
}}})

// TestHeadlessRefusesQuestions: with no user to answer, ask_user_question
// is refused with a result that tells the model to go on by itself, and
// the run goes on to its answer.
func TestHeadlessRefusesQuestions(t *testing.T) {
	t.Parallel()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_q", "ask_user_question", dbQuestion)},
		fp.Turn{fp.Text("Assumed SQLite.")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-p", "set up the tests")
	if r.code != 0 || r.stdout != "Assumed SQLite.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	raw := string(reqs[1].Raw)
	if !strings.Contains(raw, "no user can answer questions in this run") || !strings.Contains(raw, "best judgement") {
		t.Fatalf("the refusal did not reach the model:\n%s", raw)
	}
}

// TestACPQuestionAskedThroughClient: an ACP session puts the question to
// the client as a permission request whose options are the question's;
// the option the client picks is the model's answer.
func TestACPQuestionAskedThroughClient(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_q", "ask_user_question", dbQuestion)},
		fp.Turn{fp.Text("Using SQLite.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	r.client.grant = "1"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, t.TempDir())
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("set up the tests")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	r.client.mu.Lock()
	asked := r.client.asked
	r.client.mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want the one question", len(asked))
	}
	q := asked[0]
	if q.ToolCall.Title == nil || *q.ToolCall.Title != "Which database should the tests use?" || string(q.ToolCall.ToolCallId) != "call_q" {
		t.Errorf("request names %+v", q.ToolCall)
	}
	var names []string
	for _, o := range q.Options {
		names = append(names, o.Name)
	}
	if len(names) != 3 || !strings.HasPrefix(names[0], "Postgres") || !strings.HasPrefix(names[1], "SQLite") || names[2] != "Skip the questions" {
		t.Errorf("options = %q", names)
	}
	if raw := string(srv.Requests()[1].Raw); !strings.Contains(raw, `\"Which database should the tests use?\": \"SQLite\"`) {
		t.Fatalf("the answer did not reach the model:\n%s", raw)
	}
}
