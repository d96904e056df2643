package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// Providers assign call ids, not the model: a backend that restarts its
// numbering reuses an id an earlier turn answered, or gives two different
// calls of one reply the same id. Each such call is a call of its own: it
// gets a fresh id and runs. Only a true replay (same id, name and
// arguments in one reply) is answered without running.
func TestReusedProviderCallIDsRun(t *testing.T) {
	dir := t.TempDir()
	echo := func(word string) fp.Step {
		return fp.ToolCall("call_1", "run_shell_command", `{"command":"echo `+word+` >> words.txt"}`)
	}
	srv := fp.New(t,
		fp.Turn{echo("one")},
		fp.Turn{echo("two"), echo("three")},
		fp.Turn{fp.Text("done.")},
	)
	r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "words.txt"))
	if got := strings.Fields(string(b)); strings.Join(got, " ") != "one two three" {
		t.Errorf("the commands ran as %q, want one, two and three, once each", got)
	}
	if strings.Contains(r.stdout, "Duplicate") {
		t.Errorf("a reused id was refused:\n%s", r.stdout)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
	ids := map[string]bool{}
	for _, m := range srv.Requests()[2].Messages {
		for _, c := range m.ToolCalls {
			if ids[c.ID] {
				t.Errorf("the request holds id %q twice", c.ID)
			}
			ids[c.ID] = true
		}
	}
	if len(ids) != 3 {
		t.Errorf("the last request holds %d calls, want 3", len(ids))
	}
}
