package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// systemText returns the system message of a recorded request.
func systemText(t *testing.T, r fp.Request) string {
	t.Helper()
	for _, m := range r.Messages {
		if m.Role == "system" {
			var s string
			if err := json.Unmarshal(m.Content, &s); err != nil {
				t.Fatalf("system content %s: %v", m.Content, err)
			}
			return s
		}
	}
	t.Fatal("the request has no system message")
	return ""
}

// A mode changed mid-session reaches the next request: the system
// prompt's approval section names it, exit_plan_mode is offered exactly
// while in plan mode (added at the end of the tool list), and the model
// is told of the change.
func TestModeSwitchReachesTheModelSDK(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")}, fp.Turn{fp.Text("three")})
	p, code := startSDK(t, dir, srv)
	p.send(userMsg("first"))
	p.next("result", nil)
	p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "plan"})
	p.send(userMsg("second"))
	p.next("result", nil)
	p.control("m2", map[string]any{"subtype": "set_permission_mode", "mode": "acceptEdits"})
	p.send(userMsg("third"))
	p.next("result", nil)
	p.exitOf(code)

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	checkModeRequests(t, reqs, "auto-edit")
}

// checkModeRequests checks three requests made in default mode, then in
// plan mode, then in the mode named last.
func checkModeRequests(t *testing.T, reqs []fp.Request, last string) {
	t.Helper()
	for i, want := range []string{"default", "plan", last} {
		sys := systemText(t, reqs[i])
		if !strings.Contains(sys, "# Approval mode: "+want+"\n") {
			t.Errorf("request %d: the system prompt does not say mode %s:\n%s", i+1, want, sys)
		}
		names := toolNames(reqs[i])
		has := slices.Contains(names, "exit_plan_mode")
		if has != (want == "plan") {
			t.Errorf("request %d in mode %s: exit_plan_mode offered %v (tools %v)", i+1, want, has, names)
		}
		if want == "plan" && has && names[len(names)-1] != "exit_plan_mode" {
			t.Errorf("request %d: exit_plan_mode is not added at the end: %v", i+1, names)
		}
	}
	if !strings.Contains(lastUserText(reqs[1]), "plan mode") {
		t.Errorf("the model was not told that plan mode began: %s", lastUserText(reqs[1]))
	}
	if !strings.Contains(lastUserText(reqs[2]), last) {
		t.Errorf("the model was not told the mode is now %s: %s", last, lastUserText(reqs[2]))
	}
	first, second := toolNames(reqs[0]), toolNames(reqs[2])
	if !slices.Equal(first, second) {
		t.Errorf("leaving plan mode changed the tools: %v, then %v", first, second)
	}
}

func TestModeSwitchReachesTheModelACP(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")}, fp.Turn{fp.Text("three")})
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	prompt := func(text string) {
		t.Helper()
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q: %+v, %v", text, resp, err)
		}
	}
	setMode := func(id string) {
		t.Helper()
		if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: sdk.SessionModeId(id)}); err != nil {
			t.Fatalf("session/set_mode %s: %v", id, err)
		}
	}
	prompt("first")
	setMode("plan")
	prompt("second")
	setMode("yolo")
	prompt("third")
	checkModeRequests(t, srv.Requests(), "yolo")
}
