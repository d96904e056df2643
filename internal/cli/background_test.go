package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// The scripts tell the parent's requests from a subagent's by what only
// one of them holds.
const (
	isSubagent   = "You are a subagent"
	afterLaunch  = "in the background as task"
	notification = "<task-notification>"
)

func bgLaunch(prompt string) fp.Turn {
	return fp.Turn{fp.ToolCall("a1", "agent", mustJSON(map[string]any{
		"description": "scan", "prompt": prompt, "run_in_background": true}))}
}

// kinds lists the stream-json messages as type/subtype.
func kinds(t *testing.T, out string) (ks []string, last map[string]any) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		st, _ := m["subtype"].(string)
		ks = append(ks, m["type"].(string)+"/"+st)
		last = m
	}
	return ks, last
}

func lastUserText(r fp.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// A background subagent that finishes while the parent is idle (its reply
// given) reaches it as a notification round, and the run ends after it.
func TestBackgroundSubagentFinishesWhileIdle(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("count the files"),
		fp.Turn{fp.When(afterLaunch), fp.Text("It runs; I will wait.")},
		fp.Turn{fp.When(isSubagent), fp.Stall(300 * time.Millisecond), fp.Text("there are 42 files")},
		fp.Turn{fp.When(notification), fp.Text("The count is 42.")},
	)
	home := filepath.Join(t.TempDir(), "home")
	r := runPlyIn(t, t.TempDir(), home, srv, "", "-y", "-p", "count", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// The transcript says what the round was and that the task ended.
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	tr, _ := os.ReadFile(files[0])
	for _, want := range []string{`"type":"round","time":`, `"send":"notification","source":"agent agent-1"`,
		`"task":"agent-1","kind":"agent","label":"general-purpose subagent: scan","state":"running"`, `"state":"finished"`} {
		if !strings.Contains(string(tr), want) {
			t.Errorf("the transcript lacks %s:\n%s", want, tr)
		}
	}
	ks, last := kinds(t, r.stdout)
	// The parent's reply ends before the notification round starts.
	got := strings.Join(ks, " ")
	i, j := strings.Index(got, "system/notification"), strings.LastIndex(got, "assistant/")
	if i < 0 || j < i || !strings.Contains(got[:i], "assistant/") {
		t.Fatalf("messages: %s", got)
	}
	if last["result"] != "The count is 42." || last["num_turns"] != float64(2) {
		t.Errorf("result %v, num_turns %v (the notification round is no user turn)", last["result"], last["num_turns"])
	}
	reqs := srv.Requests()
	n := lastUserText(reqs[len(reqs)-1])
	if !strings.Contains(n, "agent-1") || !strings.Contains(n, "there are 42 files") {
		t.Errorf("the notification says %q", n)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// One that finishes while the parent streams waits for that round.
func TestBackgroundSubagentFinishesWhileParentStreams(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("count the files"),
		fp.Turn{fp.When(afterLaunch), fp.Text("Meanwhile, "), fp.Stall(400 * time.Millisecond), fp.Text("I keep talking.")},
		fp.Turn{fp.When(isSubagent), fp.Text("there are 42 files")},
		fp.Turn{fp.When(notification), fp.Text("The count is 42.")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-y", "-p", "count")
	if r.code != 0 || r.stdout != "The count is 42.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	// The streamed reply is whole in the history before the notification.
	var sawReply bool
	for _, m := range last.Messages {
		if m.Role == "assistant" && strings.Contains(m.Text(), "I keep talking.") {
			sawReply = true
		}
	}
	if !sawReply || !strings.Contains(lastUserText(last), notification) {
		t.Fatalf("the notification round's request: %+v", last.Messages)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// A message to a running background subagent arrives at its next round
// boundary: with the results of the tool round it was in, after them.
func TestMessageToARunningSubagent(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("check a.go"),
		fp.Turn{fp.When(afterLaunch), fp.ToolCall("s1", "send_message", `{"task_id":"agent-1","message":"ALSO-CHECK-B"}`)},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("c1", "run_shell_command", `{"command":"sleep 0.5"}`)},
		fp.Turn{fp.When("Message queued for background task"), fp.Text("Sent.")},
		fp.Turn{fp.When("ALSO-CHECK-B"), fp.When(isSubagent), fp.Text("a.go and b.go are fine")},
		fp.Turn{fp.When(notification), fp.Text("Both are fine.")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-y", "-p", "check")
	if r.code != 0 || r.stdout != "Both are fine.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	var sub fp.Request
	for _, q := range srv.Requests() {
		if strings.Contains(q.Messages[0].Text(), isSubagent) && strings.Contains(lastUserText(q), "ALSO-CHECK-B") {
			sub = q
		}
	}
	if sub.Messages == nil {
		t.Fatal("no subagent request carried the message")
	}
	// It follows the shell call's result: the call stays answered first.
	msgs := sub.Messages
	if prev := msgs[len(msgs)-2]; prev.Role != "tool" {
		t.Errorf("the message does not follow the tool result: %+v", prev)
	}
	reqs := srv.Requests()
	if n := lastUserText(reqs[len(reqs)-1]); !strings.Contains(n, "b.go are fine") {
		t.Errorf("the notification says %q", n)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// A background subagent's message to its parent reaches the idle parent
// as a teammate round, before the subagent's report.
func TestSubagentMessagesItsParent(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("long job"),
		fp.Turn{fp.When(afterLaunch), fp.Text("Waiting.")},
		fp.Turn{fp.When(isSubagent), fp.ToolCall("m1", "send_message", `{"message":"HALF-WAY"}`)},
		fp.Turn{fp.When("Message queued for the main agent"), fp.Stall(300 * time.Millisecond), fp.Text("all done")},
		fp.Turn{fp.When("<teammate-message"), fp.Text("Halfway, it says.")},
		fp.Turn{fp.When(notification), fp.Text("Finished.")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-y", "-p", "go", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ks, last := kinds(t, r.stdout)
	got := strings.Join(ks, " ")
	if i, j := strings.Index(got, "system/teammate"), strings.Index(got, "system/notification"); i < 0 || j < i {
		t.Fatalf("messages: %s", got)
	}
	if last["result"] != "Finished." {
		t.Errorf("result %v", last["result"])
	}
}

// A run killed while a background subagent works, then --continue: the
// model is told what was lost.
func TestKilledWithBackgroundWorkThenContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t,
		bgLaunch("count the files"),
		fp.Turn{fp.When(afterLaunch), fp.Text("It runs; I will wait.")},
		fp.Turn{fp.When(isSubagent), fp.Stall(time.Minute), fp.Text("never")},
		fp.Turn{fp.When("was interrupted while background work"), fp.Text("I will start it again.")},
	)
	ply := startPlayPly(t, dir, home, srv.URL, "-y", "-p", "count")
	// Killed once the subagent works and the parent's reply is saved.
	saved := func() bool {
		files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "I will wait.") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(20 * time.Second)
	for (len(srv.Requests()) < 3 || !saved()) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = ply.Process.Signal(syscall.SIGKILL)
	_ = ply.Wait()
	if len(srv.Requests()) < 3 {
		t.Fatal("the subagent never asked the model")
	}
	r := runPlyHome(t, dir, home, srv, "-y", "--continue")
	if r.code != 0 || r.stdout != "I will start it again.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	told := lastUserText(reqs[len(reqs)-1])
	if !strings.Contains(told, "agent-1") || !strings.Contains(told, "scan") {
		t.Errorf("the model was told %q", told)
	}
	// Said once: a second resume does not repeat it.
	srv.Append(fp.Turn{fp.Text("ok")})
	r = runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "and now?")
	reqs = srv.Requests()
	if r.code != 0 || strings.Contains(lastUserText(reqs[len(reqs)-1]), "interrupted while background") {
		t.Errorf("exit %d; the second resume said it again: %q", r.code, lastUserText(reqs[len(reqs)-1]))
	}
}
