package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// toolAnswer returns the content of the tool message answering id in the
// last request the fake server saw.
func toolAnswer(t *testing.T, srv *fp.Server, id string) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return string(m.Content)
		}
	}
	t.Fatalf("no answer to %s", id)
	return ""
}

// TestSandboxRefusesWithoutLandlock plays a kernel without Landlock: with
// --sandbox ply says so once and refuses every command, and
// --allow-unsandboxed runs them anyway.
func TestSandboxRefusesWithoutLandlock(t *testing.T) {
	saved := sandboxAvailable
	t.Cleanup(func() { sandboxAvailable = saved })
	sandboxAvailable = func() (int, error) { return 0, errors.New("function not implemented") }

	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", `{"command":"touch ran1"}`)},
		fp.Turn{fp.ToolCall("c2", "run_shell_command", `{"command":"touch ran2"}`)},
		fp.Turn{fp.Text("done")},
	)
	r := runPly(t, dir, srv, "", "--sandbox", "-y", "-p", "go")
	if n := strings.Count(r.stderr, "refusing to run shell commands unsandboxed"); n != 1 {
		t.Fatalf("the refusal was said %d times; stderr:\n%s", n, r.stderr)
	}
	if a := toolAnswer(t, srv, "c2"); !strings.Contains(a, "--allow-unsandboxed") {
		t.Errorf("the tool answer does not explain the refusal: %s", a)
	}
	for _, f := range []string{"ran1", "ran2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("a refused command ran: %s (stat: %v)", f, err)
		}
	}

	srv = fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", `{"command":"touch ran"}`)},
		fp.Turn{fp.Text("done")},
	)
	r = runPly(t, dir, srv, "", "--sandbox", "--allow-unsandboxed", "-y", "-p", "go")
	if r.code != 0 || !strings.Contains(r.stderr, "unsandboxed as --allow-unsandboxed asks") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Errorf("the opted-out command did not run: %v", err)
	}
}

func TestSandboxFlagsNeedSandbox(t *testing.T) {
	for _, f := range []string{"--sandbox-network", "--allow-unsandboxed", "--sandbox-write-dir=/x"} {
		r := runPly(t, t.TempDir(), nil, "", f, "-p", "go")
		if r.code != 42 || !strings.Contains(r.stderr, "needs --sandbox") {
			t.Errorf("%s: exit %d; stderr:\n%s", f, r.code, r.stderr)
		}
	}
}
