package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxSendNow: a message typed while a command runs is queued with a
// line saying when it goes; Ctrl+S sends it after the running command,
// with its result, in the same turn.
func TestTmuxSendNow(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	for _, width := range []int{80, 120} {
		dir := t.TempDir()
		release := filepath.Join(dir, "release")
		srv := fp.New(t,
			fp.Turn{fp.ToolCall("call_w", "run_shell_command", args(map[string]any{"command": "while [ ! -e release ]; do sleep 0.05; done; echo released"}))},
			fp.Turn{fp.Text("noted, using tabs")},
		)
		x := startPly(t, bin, dir, srv, width, 24, []string{"NO_COLOR=1"}, "--yolo")
		x.waitFor("test-model · yolo mode")
		x.submit("format the code")
		x.waitFor("working…")
		x.submit("use tabs")
		s := x.waitFor("1 queued: sent when the turn ends")
		if !strings.Contains(s, "ctrl+s") {
			t.Fatalf("%d columns: the hint does not offer send now:\n%s", width, s)
		}
		x.run("send-keys", "-t", "ply", "C-s")
		x.waitFor("1 to send after the running tools")
		if err := os.WriteFile(release, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		x.waitFor("noted, using tabs")
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d columns: %d requests, want the message in the second", width, len(reqs))
		}
		if raw := string(reqs[1].Raw); !strings.Contains(raw, "released") || !strings.Contains(raw, "use tabs") {
			t.Fatalf("%d columns: the second request lacks the result or the message:\n%s", width, raw)
		}
	}
}
