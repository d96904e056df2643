package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// ---- caps_count_subagents: --max-tool-calls, --max-session-turns ----

// capCases are the session caps, each at 3, with the result they end a
// run with.
var capCases = []struct {
	name, flag, subtype string
	code                int
}{
	{"tool_calls", "--max-tool-calls", "error_max_tool_calls", 55},
	{"session_turns", "--max-session-turns", "error_max_turns", 53},
}

// capScript delegates to a subagent that lists the directory four times:
// the parent's call and round and the subagent's pass either cap of 3
// only when the subagent's work counts.
func capScript() []fp.Turn {
	turns := []fp.Turn{{fp.ToolCall("a1", "agent", `{"description":"look around","prompt":"list the files, four times","subagent_type":"general-purpose"}`)}}
	for i := range 4 {
		turns = append(turns, fp.Turn{fp.When(isSubagent), fp.ToolCall(fmt.Sprintf("s%d", i), "list_directory", `{"path":"."}`)})
	}
	return append(turns, fp.Turn{fp.When(isSubagent), fp.Text("done looking")}, fp.Turn{fp.Text("all done")})
}

// plySubtype is a result's subtype as ply names it: under the SDK, a
// subtype the Agent SDK does not know is mapped onto one it does, and
// ply's own goes in ply_subtype.
func plySubtype(res map[string]any) any {
	if s, ok := res["ply_subtype"]; ok {
		return s
	}
	return res["subtype"]
}

// checkCapResult checks a result message that a cap ended the run, its
// text saying subagents' work counted.
func checkCapResult(t *testing.T, res map[string]any, subtype string) {
	t.Helper()
	if plySubtype(res) != subtype || res["is_error"] != true {
		t.Fatalf("result %v, want %s", res, subtype)
	}
	if msg, _ := res["error"].(string); !strings.Contains(msg, "subagents") {
		t.Errorf("the result does not say subagents' work counted: %v", res)
	}
}

func parityCapsHeadless(t *testing.T) {
	for _, c := range capCases {
		t.Run(c.name, func(t *testing.T) {
			srv := fp.New(t, capScript()...)
			r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "stream-json", c.flag, "3", "-p", "go")
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; out %s\nstderr %s", r.code, c.code, r.stdout, r.stderr)
			}
			checkCapResult(t, lastResult(t, r.stdout), c.subtype)
			if strings.Contains(r.stdout, "all done") {
				t.Errorf("the parent went on past the cap: %s", r.stdout)
			}
		})
	}
}

// Under the SDK the caps bound each query, and the session goes on: the
// next query, with a budget of its own, gets the script's last answer.
func parityCapsSDK(t *testing.T) {
	for _, c := range capCases {
		t.Run(c.name, func(t *testing.T) {
			srv := fp.New(t, capScript()...)
			p, code := startSDK(t, t.TempDir(), srv, "-y", c.flag, "3")
			p.send(userMsg("go"))
			checkCapResult(t, p.next("result", nil), c.subtype)
			p.send(userMsg("and now?"))
			if res := p.next("result", nil); res["subtype"] != "success" || res["result"] != "all done" {
				t.Errorf("the query after the cap: %v", res)
			}
			p.exitOf(code)
		})
	}
}

// A background subagent's work is the session's too: its calls count
// against the cap of the run that launched it.
func parityCapsBackground(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("list the files, four times"),
		fp.Turn{fp.When(afterLaunch), fp.Text("It runs; I will wait.")},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("s0", "list_directory", `{"path":"."}`)},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("s1", "list_directory", `{"path":"."}`)},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("s2", "list_directory", `{"path":"."}`)},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("s3", "list_directory", `{"path":"."}`)},
		fp.Turn{fp.When(isSubagent), fp.Text("done looking")},
		fp.Turn{fp.When(notification), fp.Text("all done")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "stream-json", "--max-tool-calls", "3", "-p", "go")
	if r.code != 55 {
		t.Fatalf("exit %d, want 55; out %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	checkCapResult(t, lastResult(t, r.stdout), "error_max_tool_calls")
	for _, q := range srv.Requests() {
		for _, m := range q.Messages {
			if m.Role == "tool" && m.ToolCallID == "s2" {
				t.Errorf("the background subagent's third call ran past the session's cap of 3 (the launch and two listings)")
			}
		}
	}
}

// ---- turn_cap: model.maxToolCallsPerTurn ----

// turnCapSettings caps each prompt at 2 tool calls.
const turnCapSettings = `{"model":{"maxToolCallsPerTurn":2}}`

// turnCapScript reads three times, one call a reply, then answers; the
// third call is past the cap. It also answers a later prompt.
func turnCapScript() []fp.Turn {
	read := func(id string) fp.Turn {
		return fp.Turn{fp.ToolCall(id, "run_shell_command", fmt.Sprintf(`{"command":"echo %s >> ran.txt"}`, id))}
	}
	return []fp.Turn{read("r1"), read("r2"), read("r3"), read("r4"), {fp.Text("went on past the cap")}}
}

// ran returns the calls that ran, in order.
func ran(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ran.txt"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// checkWentOn checks that the request after the question told the model
// it may make another 2 calls, and that those ran.
func checkWentOn(t *testing.T, srv *fp.Server, dir string) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5 (three to the cap, the go-on, one more call)", len(reqs))
	}
	if got := lastUserText(reqs[3]); !strings.Contains(got, "another 2 tool calls") {
		t.Errorf("the request after the question says %q, want that another 2 tool calls are allowed", got)
	}
	if got := ran(t, dir); got != "r1 r2 r4" {
		t.Errorf("calls that ran: %q, want r1 r2 (to the cap), r4 (after going on); r3 hit the cap and never ran", got)
	}
}

func parityTurnCapHeadless(t *testing.T) {
	dir, home := parityHome(t)
	writeUserSettings(t, home, turnCapSettings)
	srv := fp.New(t, turnCapScript()...)
	r := runPlyHome(t, dir, home, srv, "-y", "-o", "stream-json", "-p", "go")
	if r.code != 55 {
		t.Fatalf("exit %d, want 55; stderr:\n%s", r.code, r.stderr)
	}
	if res := lastResult(t, r.stdout); res["subtype"] != "error_max_tool_calls" || !strings.Contains(fmt.Sprint(res["error"]), "2") {
		t.Errorf("result %v", res)
	}
	if got := ran(t, dir); got != "r1 r2" {
		t.Errorf("calls that ran: %q, want r1 r2", got)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3: nothing is sent after the cap", n)
	}
}

// Under the SDK the cap ends the query as headless ends its run; the next
// query has a fresh cap.
func parityTurnCapSDK(t *testing.T) {
	dir, home := parityHome(t)
	writeUserSettings(t, home, turnCapSettings)
	srv := fp.New(t, turnCapScript()[:3]...)
	p, code := startSDKHome(t, dir, home, srv, "-y")
	p.send(userMsg("go"))
	if res := p.next("result", nil); plySubtype(res) != "error_max_tool_calls" {
		t.Errorf("result %v, want error_max_tool_calls", res)
	}
	if got := ran(t, dir); got != "r1 r2" {
		t.Errorf("calls that ran: %q, want r1 r2", got)
	}
	srv.Append(turnCapScript()[3:]...)
	p.send(userMsg("again"))
	if res := p.next("result", nil); res["result"] != "went on past the cap" {
		t.Errorf("the next query (a fresh cap): %v", res)
	}
	p.exitOf(code)
}

// The UI asks in its dialog; y goes on with 2 more calls, n stops.
func parityTurnCapTUI(t *testing.T) {
	t.Run("allow", func(t *testing.T) {
		dir, home := parityHome(t)
		srv := fp.New(t, turnCapScript()...)
		r := startTUI(t, dir, home, srv, map[string]any{"model": map[string]any{"maxToolCallsPerTurn": 2}}, "--approval-mode", "yolo")
		r.submit("go")
		r.waitText("Allow another 2 tool calls?")
		r.keys("y")
		r.waitText("went on past the cap")
		r.quit()
		checkWentOn(t, srv, dir)
	})
	t.Run("reject", func(t *testing.T) {
		dir, home := parityHome(t)
		srv := fp.New(t, turnCapScript()[:3]...)
		r := startTUI(t, dir, home, srv, map[string]any{"model": map[string]any{"maxToolCallsPerTurn": 2}}, "--approval-mode", "yolo")
		r.submit("go")
		r.waitText("Allow another 2 tool calls?")
		r.keys("n" + keyEnter) // no, and no reason given
		r.waitText("more than 2 tool calls")
		r.quit()
		if n := len(srv.Requests()); n != 3 {
			t.Errorf("%d requests, want 3: nothing is sent after the user said no", n)
		}
		if got := ran(t, dir); got != "r1 r2" {
			t.Errorf("calls that ran: %q, want r1 r2", got)
		}
	})
}

// ACP asks the client with session/request_permission: allow_once goes on
// with 2 more calls; reject_once ends the prompt turn with
// max_turn_requests.
func parityTurnCapACP(t *testing.T) {
	checkAsked := func(t *testing.T, r *acpRun) {
		t.Helper()
		r.client.mu.Lock()
		asked := r.client.asked
		r.client.mu.Unlock()
		if len(asked) != 1 {
			t.Fatalf("the client was asked %d times, want once, about the per-turn cap: %+v", len(asked), asked)
		}
		title := ""
		if asked[0].ToolCall.Title != nil {
			title = *asked[0].ToolCall.Title
		}
		if !strings.Contains(title, "another 2 tool calls") {
			t.Errorf("the question's title is %q, want it to mention another 2 tool calls", title)
		}
		var opts []string
		for _, o := range asked[0].Options {
			opts = append(opts, string(o.OptionId))
		}
		if j := strings.Join(opts, " "); !strings.Contains(j, "allow_once") || !strings.Contains(j, "reject_once") {
			t.Errorf("the question's options are %v, want allow_once and reject_once", opts)
		}
	}
	t.Run("allow", func(t *testing.T) {
		dir, home := parityHome(t)
		writeUserSettings(t, home, turnCapSettings)
		srv := fp.New(t, turnCapScript()...)
		r, ctx, id := startACPSession(t, srv, dir, home, "--yolo")
		r.client.grant = "allow_once"
		if sr := acpPrompt(t, ctx, r, id, "go"); sr != sdk.StopReasonEndTurn {
			t.Errorf("stop reason %s, want end_turn after the client allowed more calls", sr)
		}
		checkAsked(t, r)
		checkWentOn(t, srv, dir)
	})
	t.Run("reject", func(t *testing.T) {
		dir, home := parityHome(t)
		writeUserSettings(t, home, turnCapSettings)
		srv := fp.New(t, turnCapScript()[:3]...)
		r, ctx, id := startACPSession(t, srv, dir, home, "--yolo")
		r.client.grant = "reject_once"
		if sr := acpPrompt(t, ctx, r, id, "go"); sr != sdk.StopReasonMaxTurnRequests {
			t.Errorf("stop reason %s, want max_turn_requests", sr)
		}
		checkAsked(t, r)
		if got := ran(t, dir); got != "r1 r2" {
			t.Errorf("calls that ran: %q, want r1 r2", got)
		}
	})
}

// A subagent has no one to ask: the cap ends its run, and its report to
// the parent says why; the parent goes on.
func parityTurnCapSubagent(t *testing.T) {
	dir, home := parityHome(t)
	writeUserSettings(t, home, turnCapSettings)
	sub := func(id string) fp.Turn {
		return fp.Turn{fp.When(isSubagent), fp.ToolCall(id, "run_shell_command", fmt.Sprintf(`{"command":"echo %s >> ran.txt"}`, id))}
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("a1", "agent", `{"description":"work","prompt":"run three commands","subagent_type":"general-purpose"}`)},
		sub("s1"), sub("s2"), sub("s3"),
		fp.Turn{fp.Text("the subagent stopped")},
	)
	r := runPlyHome(t, dir, home, srv, "-y", "-p", "go")
	if r.code != 0 || r.stdout != "the subagent stopped\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := ran(t, dir); got != "s1 s2" {
		t.Errorf("the subagent's calls that ran: %q, want s1 s2", got)
	}
	if got := toolText(t, srv, "a1"); !strings.Contains(got, "2") || !strings.Contains(got, "tool calls") {
		t.Errorf("the subagent's report does not say it hit the per-turn cap: %q", got)
	}
}
