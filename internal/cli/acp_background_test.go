package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

func acpPrompt(t *testing.T, ctx context.Context, r *acpRun, id sdk.SessionId, text string) sdk.StopReason {
	t.Helper()
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("session/prompt %q: %v", text, err)
	}
	return resp.StopReason
}

// A background subagent that finishes while the prompt's reply streams
// reaches the model after that round, within the same prompt turn: the
// client sees the round announced, then the model's answer to it, then
// the stop reason.
func TestACPNotificationWithinThePrompt(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("count the files"),
		fp.Turn{fp.When(afterLaunch), fp.Text("Meanwhile, "), fp.Stall(500 * time.Millisecond), fp.Text("I keep talking.")},
		fp.Turn{fp.When(isSubagent), fp.Text("there are 42 files")},
		fp.Turn{fp.When(notification), fp.Text("The count is 42.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, t.TempDir())
	if sr := acpPrompt(t, ctx, r, ns.SessionId, "count"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", sr)
	}
	got := r.client.seen()
	i, j, k := strings.Index(got, "I keep talking."), strings.Index(got, "[notification from agent agent-1"), strings.Index(got, "The count is 42.")
	if i < 0 || j < i || k < j {
		t.Fatalf("updates (want the reply, the announcement, the answer, in that order):\n%s", got)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// ACP has no turn the agent may start: a round that arrives while no
// prompt runs goes, with its announcement, at the start of the next
// prompt, before the prompt's own text and in the same request.
func TestACPNotificationWhileIdleWaitsForTheNextPrompt(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("count the files"),
		fp.Turn{fp.When(afterLaunch), fp.Text("It runs.")},
		fp.Turn{fp.When(isSubagent), fp.Stall(200 * time.Millisecond), fp.Text("there are 42 files")},
		fp.Turn{fp.When(notification), fp.Text("It found 42.")},
	)
	home := filepath.Join(t.TempDir(), "home")
	r := startACP(t, srv, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, t.TempDir())
	if sr := acpPrompt(t, ctx, r, ns.SessionId, "count"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", sr)
	}
	waitTranscript(t, home, `"state":"finished"`)
	r.client.seen()
	if sr := acpPrompt(t, ctx, r, ns.SessionId, "what now?"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", sr)
	}
	got := r.client.seen()
	if !strings.Contains(got, "[notification from agent agent-1") || !strings.Contains(got, "It found 42.") {
		t.Fatalf("updates:\n%s", got)
	}
	reqs := srv.Requests()
	last := lastUserText(reqs[len(reqs)-1])
	if n, p := strings.Index(last, "there are 42 files"), strings.Index(last, "what now?"); n < 0 || p < n {
		t.Fatalf("the next prompt's request says %q", last)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// waitTranscript waits until the one session transcript under home holds
// want.
func waitTranscript(t *testing.T, home, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), want) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no transcript holds %s", want)
}

// An ACP prompt "/loop 1s PROMPT" starts a schedule; a firing that comes
// while a prompt runs is sent after its round, within that prompt turn;
// "/loop stop ID" ends it.
func TestACPLoop(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.When("hello"), fp.Stall(1500 * time.Millisecond), fp.Text("hi there")},
		fp.Turn{fp.When("TICK-PROMPT"), fp.Text("tock")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, t.TempDir())
	if got := r.waitUpdate(t, `"sessionUpdate":"available_commands_update"`); !strings.Contains(got, `"name":"loop"`) {
		t.Errorf("available commands lack loop:\n%s", got)
	}
	r.client.seen()
	for _, bad := range []string{"/loop soon TICK", "/loop 1s", "/loop stop loop-9"} {
		acpPrompt(t, ctx, r, ns.SessionId, bad)
		if got := r.client.seen(); !strings.Contains(got, "/loop failed") {
			t.Errorf("%s answered:\n%s", bad, got)
		}
	}
	if sr := acpPrompt(t, ctx, r, ns.SessionId, "/loop 1s TICK-PROMPT"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", sr)
	}
	got := r.client.seen()
	if !strings.Contains(got, "loop-1") || !strings.Contains(got, "every 1s") {
		t.Fatalf("/loop answered:\n%s", got)
	}
	acpPrompt(t, ctx, r, ns.SessionId, "/loop")
	if got := r.client.seen(); !strings.Contains(got, "TICK-PROMPT") {
		t.Errorf("/loop lists:\n%s", got)
	}
	if sr := acpPrompt(t, ctx, r, ns.SessionId, "hello"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", sr)
	}
	got = r.client.seen()
	i, j, k := strings.Index(got, "hi there"), strings.Index(got, "[cron from schedule loop-1"), strings.Index(got, "tock")
	if i < 0 || j < i || k < j {
		t.Fatalf("updates (want the reply, the firing, its answer):\n%s", got)
	}
	acpPrompt(t, ctx, r, ns.SessionId, "/loop stop loop-1")
	if got := r.client.seen(); !strings.Contains(got, "stopped loop-1") {
		t.Errorf("/loop stop answered:\n%s", got)
	}
}
