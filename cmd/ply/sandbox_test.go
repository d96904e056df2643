package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox"
)

// TestSandboxE2E runs the real binary with --sandbox, which confines each
// shell command through ply itself as the helper: the model's write
// outside the workspace fails, its write inside succeeds.
func TestSandboxE2E(t *testing.T) {
	t.Parallel()
	if abi, err := sandbox.Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	} else {
		t.Logf("Landlock ABI %d", abi)
	}
	bin := buildPly(t)
	base := t.TempDir()
	// The temporary directory is writable under the sandbox, and the
	// test's directories live in it: give ply its own, so that the
	// outside directory really is outside.
	ws, outside, tmp := filepath.Join(base, "ws"), filepath.Join(base, "outside"), filepath.Join(base, "tmp")
	for _, d := range []string{ws, outside, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "escaped")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("out1", "run_shell_command", `{"command":"echo x > `+target+`"}`)},
		fp.Turn{fp.ToolCall("in1", "run_shell_command", `{"command":"echo x > inside && sh -c 'echo y > $TMPDIR/t' && cat inside"}`)},
		fp.Turn{fp.Text("done")},
	)
	cmd, _, errb := plyCmd(t, bin, ws, srv, "--sandbox", "-y", "-p", "write files")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	if err := cmd.Run(); err != nil {
		t.Fatalf("ply: %v\nstderr:\n%s", err, errb)
	}

	answers := map[string]string{}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				answers[m.ToolCallID] = string(m.Content)
			}
		}
	}
	if a := answers["out1"]; !strings.Contains(a, "Permission denied") || strings.Contains(a, "Exit code: 0") {
		t.Errorf("the write outside did not fail: %s", a)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("%s exists (stat: %v)", target, err)
	}
	if a := answers["in1"]; !strings.Contains(a, "Exit code: 0") {
		t.Errorf("the write inside failed: %s", a)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside")); err != nil || string(b) != "x\n" {
		t.Errorf("inside: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "t")); err != nil {
		t.Errorf("the temporary directory was not writable: %v", err)
	}
}
