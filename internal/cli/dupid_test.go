package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// The same new call id twice in one reply: the first copy runs, the extra
// one is answered "duplicate call id, not run", and the run goes on.
func TestRepeatedIDInOneReplyRunsOnceAndGoesOn(t *testing.T) {
	dir := t.TempDir()
	tick := fp.ToolCall("same", "run_shell_command", `{"command":"echo tick >> ticks.txt"}`)
	srv := fp.New(t, fp.Turn{tick, tick}, fp.Turn{fp.Text("done.")})
	r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "Duplicate call id, not run"); n != 1 {
		t.Errorf("%d synthetic answers for the extra copy, want 1:\n%s", n, r.stdout)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ticks.txt"))
	if n := strings.Count(string(b), "tick"); n != 1 {
		t.Errorf("the command ran %d times, want once", n)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	var answers []string
	for _, m := range srv.Requests()[1].Messages {
		if m.Role == "tool" && m.ToolCallID == "same" {
			answers = append(answers, m.Text())
		}
	}
	if len(answers) != 1 || !strings.Contains(answers[0], "Command: echo tick") {
		t.Errorf("the call's real result was not sent once: %q", answers)
	}
	// The extra copy entered history under an id of its own, and its
	// answer says it was not run: every call of the request is answered
	// once, as strict backends require.
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
	var calls, notRun int
	for _, m := range srv.Requests()[1].Messages {
		calls += len(m.ToolCalls)
		if m.Role == "tool" && strings.Contains(m.Text(), "Duplicate call id, not run") {
			notRun++
		}
	}
	if calls != 2 || notRun != 1 {
		t.Errorf("the request holds %d calls and %d not-run answers, want 2 and 1", calls, notRun)
	}
}
