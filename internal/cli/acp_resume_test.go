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

// session/resume opens a saved session without replaying it; the next
// prompt goes on from its conversation.
func TestACPResumeSession(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("First answer.")}, fp.Turn{fp.When("and then?"), fp.Text("Second answer.")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	first := startACP(t, srv, home)
	ns := first.newSession(t, ctx, dir)
	if _, err := first.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("remember this")}}); err != nil {
		t.Fatal(err)
	}
	first.in.Close()
	select {
	case <-first.code:
	case <-time.After(20 * time.Second):
		t.Fatal("the first process did not exit")
	}
	first.code <- 0 // for its cleanup

	second := startACP(t, srv, home)
	init, err := second.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || init.AgentCapabilities.SessionCapabilities.Resume == nil {
		t.Fatalf("initialize: resume not offered: %+v, %v", init.AgentCapabilities.SessionCapabilities, err)
	}
	rs, err := second.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: ns.SessionId, Cwd: dir})
	if err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if rs.Modes == nil || rs.Modes.CurrentModeId != "default" {
		t.Errorf("session/resume modes = %+v", rs.Modes)
	}
	if _, err := second.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: "no-such-session", Cwd: dir}); err == nil {
		t.Error("resuming a session that does not exist succeeded")
	}
	resp, err := second.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("and then?")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v, %v", resp, err)
	}
	got := second.client.seen()
	if strings.Contains(got, "user_message_chunk") || strings.Contains(got, "First answer.") {
		t.Errorf("session/resume replayed the conversation:\n%s", got)
	}
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Raw); !strings.Contains(last, "remember this") || !strings.Contains(last, "First answer.") {
		t.Errorf("the resumed prompt lacks the earlier exchange: %s", last)
	}
}
