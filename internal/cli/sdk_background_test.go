package cli

import (
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// Under the SDK a background subagent's report reaches the model as a
// notification round before the query's result: a system message naming
// the task, then the round, not counted in num_turns.
func TestSDKBackgroundSubagentNotification(t *testing.T) {
	srv := fp.New(t,
		bgLaunch("count the files"),
		fp.Turn{fp.When(afterLaunch), fp.Text("It runs; I will wait.")},
		fp.Turn{fp.When(isSubagent), fp.Stall(300 * time.Millisecond), fp.Text("there are 42 files")},
		fp.Turn{fp.When(notification), fp.Text("The count is 42.")},
	)
	p, code := startSDK(t, t.TempDir(), srv, "-y")
	p.send(userMsg("count"))
	var seen []map[string]any
	res := p.next("result", &seen)
	var ks []string
	var sys map[string]any
	for _, m := range seen {
		st, _ := m["subtype"].(string)
		ks = append(ks, m["type"].(string)+"/"+st)
		if st == "notification" {
			sys = m
		}
	}
	got := strings.Join(ks, " ")
	if !strings.Contains(got, "assistant/ system/notification assistant/ result/success") {
		t.Fatalf("messages: %s", got)
	}
	if sys["source"] != "agent agent-1" {
		t.Errorf("the system message names %v", sys["source"])
	}
	if res["result"] != "The count is 42." || res["num_turns"] != float64(2) { // the launch and its answer: the notification is no user turn
		t.Errorf("result %v, num_turns %v", res["result"], res["num_turns"])
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
	p.in.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ply did not exit when stdin closed")
	}
}

// send_message is offered to the SDK's model with background subagents.
func TestSDKOffersBackgroundTools(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	p, _ := startSDK(t, t.TempDir(), srv, "-y")
	p.send(userMsg("hi"))
	init := p.next("system", nil)
	tools, _ := init["tools"].([]any)
	var names []string
	for _, n := range tools {
		names = append(names, n.(string))
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " send_message ") {
		t.Fatalf("tools %v lack send_message", names)
	}
	p.next("result", nil)
}
