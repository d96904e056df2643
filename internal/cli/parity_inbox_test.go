package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// ---- inbox_teammate_after_results ----
//
// A background subagent messages its parent while the parent's command
// runs, and only then: the command says it started through p1.fifo, which
// the subagent reads before it sends the message, and then blocks reading
// msg.fifo, which the subagent writes once its message is queued. The
// message must join the parent's next request after the command's
// result, in the same request; then the subagent's report comes as a
// notification round.

const halfWay = "HALF-WAY"

// teammateScript scripts both loops; noMessage answers a request after the
// command's result that lacks the message, so that an entry that sends it
// later still runs to the end (and the check then says what went wrong).
func teammateScript() []fp.Turn {
	return []fp.Turn{
		bgLaunch("report half-way, then finish"),
		{fp.When(afterLaunch), fp.ToolCall("p1", "run_shell_command", `{"command":"echo running > p1.fifo; cat msg.fifo"}`)},
		{fp.When(isSubagent), fp.ToolCall("m0", "run_shell_command", `{"command":"cat p1.fifo"}`)},
		{fp.When("Output: running"), fp.ToolCall("m1", "send_message", `{"message":"`+halfWay+`"}`)},
		{fp.When("Message queued for the main agent"), fp.ToolCall("m2", "run_shell_command", `{"command":"echo sent > msg.fifo"}`)},
		{fp.When(halfWay), fp.Text("noted the message")},
		{fp.When(isSubagent), fp.Text("all done")},
		{fp.When(notification), fp.Text("Finished.")},
		{fp.Text(noMessage)},
	}
}

const noMessage = "no message came with the results"

// teammateDir returns a workspace with the fifos of teammateScript.
func teammateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"p1.fifo", "msg.fifo"} {
		if err := sandboxtest.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkTeammateAfterResults checks the parent's request that answers the
// command p1: right after p1's result, last in that request, comes the
// teammate's message; and the notification round was sent.
func checkTeammateAfterResults(t *testing.T, srv *fp.Server) {
	t.Helper()
	var after []fp.Message
	var notified bool
	for _, q := range srv.Requests() {
		if strings.Contains(systemText(t, q), isSubagent) {
			continue
		}
		if strings.Contains(lastUserText(q), notification) {
			notified = true
		}
		for i, m := range q.Messages {
			if m.Role == "tool" && m.ToolCallID == "p1" && after == nil {
				after = q.Messages[i+1:]
			}
		}
	}
	if !notified {
		t.Errorf("no request of the parent's carried the subagent's notification")
	}
	switch {
	case after == nil:
		t.Fatal("no request of the parent's carried the command's result")
	case len(after) == 0:
		t.Errorf("the request after the command's result ends with it: the teammate's message (%s) did not join it, "+
			"it went in a request of its own after the model stopped", halfWay)
	case after[0].Role != "user" || !strings.Contains(after[0].Text(), "<teammate-message") || !strings.Contains(after[0].Text(), halfWay):
		t.Errorf("after the command's result comes %s %q, want the teammate's message", after[0].Role, after[0].Text())
	case len(after) != 1:
		t.Errorf("the teammate's message is not last in the request: %d messages follow the result", len(after))
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
	if t.Failed() {
		for i, q := range srv.Requests() {
			t.Logf("request %d, answered by turn %d: last message %s %q", i, q.Turn, q.Messages[len(q.Messages)-1].Role, abbreviateText(q.Messages[len(q.Messages)-1].Text()))
		}
	}
}

func abbreviateText(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func parityInboxHeadless(t *testing.T) {
	srv := fp.New(t, teammateScript()...)
	r := runPly(t, teammateDir(t), srv, "", "-y", "-o", "stream-json", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ks, last := kinds(t, r.stdout)
	if got := strings.Join(ks, " "); !strings.Contains(got, "system/teammate") || !strings.Contains(got, "system/notification") {
		t.Errorf("the rounds were not announced: %s", got)
	}
	if last["result"] != "Finished." {
		t.Errorf("result %v", last["result"])
	}
	checkTeammateAfterResults(t, srv)
}

func parityInboxSDK(t *testing.T) {
	srv := fp.New(t, teammateScript()...)
	p, code := startSDK(t, teammateDir(t), srv, "-y")
	p.send(userMsg("go"))
	var seen []map[string]any
	res := p.next("result", &seen)
	var subtypes []string
	for _, m := range seen {
		if m["type"] == "system" {
			subtypes = append(subtypes, m["subtype"].(string))
		}
	}
	if got := strings.Join(subtypes, " "); !strings.Contains(got, "teammate") || !strings.Contains(got, "notification") {
		t.Errorf("the rounds were not announced: system messages %s", got)
	}
	if res["result"] != "Finished." {
		t.Errorf("result %v", res)
	}
	p.exitOf(code)
	checkTeammateAfterResults(t, srv)
}

func parityInboxTUI(t *testing.T) {
	dir, home := teammateDir(t), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, teammateScript()...)
	r := startTUI(t, dir, home, srv, nil, "--approval-mode", "yolo")
	r.submit("go")
	r.waitText("Finished.")
	r.quit()
	for _, want := range []string{"agent agent-1 (teammate)", "agent agent-1 (notification)"} {
		if s, _ := r.out.snapshot(); !strings.Contains(s, want) {
			t.Errorf("the screen does not announce %q", want)
		}
	}
	checkTeammateAfterResults(t, srv)
}

// ACP: the notification goes within the prompt turn when it is queued as
// the model stops, else before the next prompt's text.
func parityInboxACP(t *testing.T) {
	dir, home := teammateDir(t), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, teammateScript()...)
	r, ctx, id := startACPSession(t, srv, dir, home, "--yolo")
	if sr := acpPrompt(t, ctx, r, id, "go"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %s", sr)
	}
	got := r.client.seen()
	if !strings.Contains(got, "Finished.") {
		waitTranscript(t, home, `"state":"finished"`)
		if sr := acpPrompt(t, ctx, r, id, "what now?"); sr != sdk.StopReasonEndTurn {
			t.Fatalf("stop reason %s", sr)
		}
		got += r.client.seen()
	}
	for _, want := range []string{"[teammate from agent agent-1", "[notification from agent agent-1", "Finished."} {
		if !strings.Contains(got, want) {
			t.Errorf("the updates lack %q:\n%s", want, got)
		}
	}
	checkTeammateAfterResults(t, srv)
}

// A parent's message to a running background subagent joins the
// subagent's next request after its tool's result. The subagent's command
// says it started through ready.fifo, which the parent reads before it
// sends the message, then blocks on go.fifo, which the parent writes once
// the message is queued.
func parityInboxSubagent(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"ready.fifo", "go.fifo"} {
		if err := sandboxtest.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := fp.New(t,
		bgLaunch("check a.go"),
		fp.Turn{fp.When(afterLaunch), fp.ToolCall("r1", "run_shell_command", `{"command":"cat ready.fifo"}`)},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("c1", "run_shell_command", `{"command":"echo ready > ready.fifo; cat go.fifo"}`)},
		fp.Turn{fp.When("Output: ready"), fp.ToolCall("s1", "send_message", `{"task_id":"agent-1","message":"ALSO-CHECK-B"}`)},
		fp.Turn{fp.When("Message queued for background task"), fp.ToolCall("e1", "run_shell_command", `{"command":"echo go > go.fifo"}`)},
		fp.Turn{fp.When("Message queued for background task"), fp.Text("Sent.")},
		fp.Turn{fp.When("ALSO-CHECK-B"), fp.When(isSubagent), fp.Text("a.go and b.go are fine")},
		fp.Turn{fp.When(notification), fp.Text("Both are fine.")},
	)
	r := runPly(t, dir, srv, "", "-y", "-p", "check")
	if r.code != 0 || r.stdout != "Both are fine.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	var after []fp.Message
	for _, q := range srv.Requests() {
		if !strings.Contains(systemText(t, q), isSubagent) {
			continue
		}
		for i, m := range q.Messages {
			if m.Role == "tool" && m.ToolCallID == "c1" && after == nil {
				after = q.Messages[i+1:]
			}
		}
	}
	if len(after) != 1 || after[0].Role != "user" || !strings.Contains(after[0].Text(), "ALSO-CHECK-B") {
		t.Errorf("after the subagent's command result come %+v, want the parent's message alone", after)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}
