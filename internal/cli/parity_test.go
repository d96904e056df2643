package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestParity runs each of the loop's guarantees through every entry layer
// where it applies, against the fake provider: TestParity/<guarantee>/<entry>.
// A cell that does not apply skips with the reason. The entries are the
// headless run (-p), the SDK (stream-json in and out, control requests),
// the interactive UI (parity_tui_test.go), ACP (--acp) and subagents (the
// agent tool), each driven as its own tests drive it.
func TestParity(t *testing.T) {
	for _, row := range parityMatrix {
		t.Run(row.guarantee, func(t *testing.T) {
			for _, entry := range parityEntries {
				cell, ok := row.cells[entry]
				t.Run(entry, func(t *testing.T) {
					if !ok {
						t.Fatalf("the matrix has no cell for %s/%s: give it a test or a skip with the reason", row.guarantee, entry)
					}
					cell(t)
				})
			}
		})
	}
}

var parityEntries = []string{"headless", "sdk", "tui", "acp", "subagent"}

type parityRow struct {
	guarantee string
	cells     map[string]func(t *testing.T)
}

var parityMatrix = []parityRow{
	{"mode_switch", map[string]func(*testing.T){
		"headless": skipCell("-p runs one prompt and offers no way to change the mode while it runs: no control channel, and no setting or hook sets it"),
		"sdk":      parityModeSDK,
		"tui":      parityModeTUI,
		"acp":      parityModeACP,
		"subagent": parityModeSubagent,
	}},
	{"caps_count_subagents", map[string]func(*testing.T){
		"headless": parityCapsHeadless,
		"sdk":      parityCapsSDK,
		"tui":      skipCell("--max-tool-calls and --max-session-turns are headless budgets: the UI is steered by the person at it, and only the per-turn cap (turn_cap) asks there"),
		"acp":      skipCell("ACP takes no --max-tool-calls or --max-session-turns budget: the client ends a prompt turn with session/cancel, and the per-turn cap (turn_cap) asks it"),
		"subagent": parityCapsBackground,
	}},
	{"prompt_hooks", map[string]func(*testing.T){
		"headless": parityHooksHeadless,
		"sdk":      parityHooksSDK,
		"tui":      parityHooksTUI,
		"acp":      parityHooksACP,
		"subagent": skipCell("a subagent's task is no user prompt: UserPromptSubmit, SessionStart and Stop are the session's; its own are SubagentStart and SubagentStop (TestSubagentHooksFire)"),
	}},
	{"keep_results_after_interrupt", map[string]func(*testing.T){
		"headless": parityKeepHeadless,
		"sdk":      parityKeepSDK,
		"tui":      parityKeepTUI,
		"acp":      parityKeepACP,
		"subagent": skipCell("a subagent is interrupted only with its parent: its history lives in its own chat and ends there (internal/core/subagent.go); what is kept is the parent's, covered by the cells above"),
	}},
	{"checkpoint_per_query", map[string]func(*testing.T){
		"headless": parityCheckpointHeadless,
		"sdk":      parityCheckpointSDK,
		"tui":      parityCheckpointTUI,
		"acp":      parityCheckpointACP,
		"subagent": skipCell("a subagent's task is no user query: there is no prompt of its own to rewind to"),
	}},
	{"inbox_teammate_after_results", map[string]func(*testing.T){
		"headless": parityInboxHeadless,
		"sdk":      parityInboxSDK,
		"tui":      parityInboxTUI,
		"acp":      parityInboxACP,
		"subagent": parityInboxSubagent,
	}},
	{"turn_cap", map[string]func(*testing.T){
		"headless": parityTurnCapHeadless,
		"sdk":      parityTurnCapSDK,
		"tui":      parityTurnCapTUI,
		"acp":      parityTurnCapACP,
		"subagent": parityTurnCapSubagent,
	}},
}

// skipCell is a cell of the matrix that does not apply, with the reason.
func skipCell(reason string) func(*testing.T) {
	return func(t *testing.T) { t.Skip(reason) }
}

// parityHome returns a workspace and a ply home for one cell.
func parityHome(t *testing.T) (dir, home string) {
	return t.TempDir(), filepath.Join(t.TempDir(), "home")
}

// startACPSession starts ply --acp against srv and opens a session in dir.
func startACPSession(t *testing.T, srv *fp.Server, dir, home string, args ...string) (*acpRun, context.Context, sdk.SessionId) {
	t.Helper()
	r := startACP(t, srv, home, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return r, ctx, r.newSession(t, ctx, dir).SessionId
}

// writeUserSettings writes ply's user settings file (home/settings.json).
func writeUserSettings(t *testing.T, home, body string) {
	t.Helper()
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ---- mode_switch: plan mode and back, mid-session ----

// threeReplies answers three prompts with text.
func threeReplies() []fp.Turn {
	return []fp.Turn{{fp.Text("reply one")}, {fp.Text("reply two")}, {fp.Text("reply three")}}
}

func parityModeSDK(t *testing.T) {
	srv := fp.New(t, threeReplies()...)
	p, code := startSDK(t, t.TempDir(), srv)
	p.send(userMsg("first"))
	p.next("result", nil)
	if r := p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "plan"}); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode plan: %v", r)
	}
	p.send(userMsg("second"))
	p.next("result", nil)
	if r := p.control("m2", map[string]any{"subtype": "set_permission_mode", "mode": "default"}); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode default: %v", r)
	}
	p.send(userMsg("third"))
	p.next("result", nil)
	if c := p.exitOf(code); c != 0 {
		t.Errorf("exit %d", c)
	}
	checkModeRequests(t, srv.Requests(), "default")
}

// The UI goes to plan mode with /approval-mode and leaves it with
// Shift+Tab, which cycles plan → default.
func parityModeTUI(t *testing.T) {
	dir, home := parityHome(t)
	srv := fp.New(t, threeReplies()...)
	r := startTUI(t, dir, home, srv, nil)
	r.submit("first")
	r.waitText("reply one")
	r.submit("/approval-mode plan")
	r.submit("second")
	r.waitText("reply two")
	r.keys(keyShiftTab)
	r.submit("third")
	r.waitText("reply three")
	if c := r.quit(); c != 0 {
		t.Errorf("exit %d", c)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	checkModeRequests(t, reqs, "default")
}

func parityModeACP(t *testing.T) {
	dir, home := parityHome(t)
	srv := fp.New(t, threeReplies()...)
	r, ctx, id := startACPSession(t, srv, dir, home)
	setMode := func(mode string) {
		t.Helper()
		if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: sdk.SessionModeId(mode)}); err != nil {
			t.Fatalf("session/set_mode %s: %v", mode, err)
		}
	}
	for i, step := range []string{"first", "plan", "second", "default", "third"} {
		if i%2 == 1 {
			setMode(step)
			continue
		}
		if sr := acpPrompt(t, ctx, r, id, step); sr != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q: stop reason %s", step, sr)
		}
	}
	checkModeRequests(t, srv.Requests(), "default")
}

// A subagent states the session's mode as it is when the subagent starts,
// and is never offered exit_plan_mode: that changes the parent's mode.
func parityModeSubagent(t *testing.T) {
	delegate := func(id string) fp.Turn {
		return fp.Turn{fp.ToolCall(id, "agent", `{"description":"look","prompt":"look around","subagent_type":"general-purpose"}`)}
	}
	srv := fp.New(t,
		delegate("a1"), fp.Turn{fp.When(isSubagent), fp.Text("sub one")}, fp.Turn{fp.Text("parent one")},
		delegate("a2"), fp.Turn{fp.When(isSubagent), fp.Text("sub two")}, fp.Turn{fp.Text("parent two")},
	)
	p, code := startSDK(t, t.TempDir(), srv)
	if r := p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "plan"}); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode plan: %v", r)
	}
	p.send(userMsg("first"))
	if res := p.next("result", nil); res["result"] != "parent one" {
		t.Fatalf("first result %v", res)
	}
	if r := p.control("m2", map[string]any{"subtype": "set_permission_mode", "mode": "default"}); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode default: %v", r)
	}
	p.send(userMsg("second"))
	if res := p.next("result", nil); res["result"] != "parent two" {
		t.Fatalf("second result %v", res)
	}
	p.exitOf(code)
	var subs []fp.Request
	for _, q := range srv.Requests() {
		if strings.Contains(systemText(t, q), isSubagent) {
			subs = append(subs, q)
		}
	}
	if len(subs) != 2 {
		t.Fatalf("%d subagent requests, want 2", len(subs))
	}
	for i, want := range []string{"plan", "default"} {
		if sys := systemText(t, subs[i]); !strings.Contains(sys, "# Approval mode: "+want+"\n") {
			t.Errorf("subagent %d started in mode %s; its system prompt:\n%s", i+1, want, sys)
		}
		if names := toolNames(subs[i]); slices.Contains(names, "exit_plan_mode") {
			t.Errorf("subagent %d was offered exit_plan_mode: %v", i+1, names)
		}
	}
}
