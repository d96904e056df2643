package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox"
)

// TestShellSandbox checks that a sandboxed shell confines foreground and
// background commands to the policy's directories.
func TestShellSandbox(t *testing.T) {
	t.Parallel()
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	sh, ws := shellTestTool(t)
	outside := t.TempDir() // disjoint from the workspace, also a TempDir
	sh.SetSandbox(&sandbox.Policy{WritableDirs: ws.Roots()})
	if d := sh.Description(); !strings.Contains(d, "sandbox") || !strings.Contains(d, ws.Root()) {
		t.Errorf("the description does not tell the model about the sandbox:\n%s", d)
	}

	res := searchTestRun(t, sh, map[string]any{"command": "echo x > inside && cat inside"})
	if res.IsError || !strings.Contains(res.Output, "Exit code: 0") {
		t.Fatalf("writing inside: %+v", res)
	}
	res = searchTestRun(t, sh, map[string]any{"command": "echo x > " + filepath.Join(outside, "f")})
	if !strings.Contains(res.Output, "Permission denied") || strings.Contains(res.Output, "Exit code: 0") {
		t.Fatalf("writing outside: %+v", res)
	}

	bg := filepath.Join(outside, "bg")
	res = searchTestRun(t, sh, map[string]any{"command": "touch " + bg + "; touch bg-done", "is_background": true})
	if res.IsError {
		t.Fatalf("background: %+v", res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if jobs := sh.Jobs(); len(jobs) == 1 && !jobs[0].Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background job did not finish: %+v", sh.Jobs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "bg-done")); err != nil {
		t.Errorf("the background job did not write inside: %v", err)
	}
	if _, err := os.Stat(bg); !os.IsNotExist(err) {
		t.Errorf("the background job wrote outside (stat: %v)", err)
	}
}

func TestShellRefusal(t *testing.T) {
	sh, ws := shellTestTool(t)
	sh.SetRefusal("no sandbox")
	for _, bg := range []bool{false, true} {
		res := searchTestRun(t, sh, map[string]any{"command": "touch ran", "is_background": bg})
		if !res.IsError || res.ErrorType != "SHELL_SANDBOX_UNAVAILABLE" || !strings.Contains(res.Output, "no sandbox") {
			t.Errorf("background %v: %+v", bg, res)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "ran")); !os.IsNotExist(err) {
		t.Errorf("a refused command ran (stat: %v)", err)
	}
}
