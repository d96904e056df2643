package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// requireAutoSandbox skips where the kernel cannot hold auto mode's
// commands: there auto asks, which TestAutoWithoutSandboxAsks checks.
func requireAutoSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("no Landlock here, auto mode asks for commands: %v", err)
	}
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		t.Skipf("no system call filter here, auto mode asks for commands: %v", err)
	}
}

// autoRun runs one headless prompt in auto mode in dir whose model runs
// command, and returns the command's tool result and the run's stderr.
func autoRun(t *testing.T, dir, home, command string) (answer, stderr string) {
	t.Helper()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", mustJSON(map[string]any{"command": command, "timeout": 600000}))},
		fp.Turn{fp.Text("done")},
	)
	r := runPlyHome(t, dir, home, srv, "--approval-mode", "auto", "-p", "verify")
	if r.code != 0 {
		t.Fatalf("%s: exit %d; stderr:\n%s", command, r.code, r.stderr)
	}
	return toolAnswer(t, srv, "c1"), r.stderr
}

// plantHome points HOME at a fresh directory holding a private key, and
// returns the key's path.
func plantHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	key := filepath.Join(home, ".ssh", "id_rsa")
	writeFile(t, key, "-----BEGIN PRIVATE KEY-----\nplanted-secret\n", 0o600)
	t.Setenv("HOME", home)
	return key
}

// TestAutoRunsGoTestUnasked checks that in auto mode a model can verify
// its work: go test of a module runs unasked, in the sandbox, with its
// build cache per project under ply's home, and passes.
func TestAutoRunsGoTestUnasked(t *testing.T) {
	requireAutoSandbox(t)
	if testing.Short() {
		t.Skip("builds a Go module's tests with a fresh build cache")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	// The sandbox's build cache is per project, below ply's home: the
	// first run compiles the standard library into it, which takes
	// minutes on a loaded machine. The project and ply's home are kept
	// in the user's cache directory so that later runs reuse it.
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory: %v", err)
	}
	base = filepath.Join(base, "ply-test", "auto-gotest")
	dir, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	plantHome(t)
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOTOOLCHAIN", "local")
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n", 0o644)
	writeFile(t, filepath.Join(dir, "m.go"), "package m\n\nfunc Add(a, b int) int { return a + b }\n", 0o644)
	writeFile(t, filepath.Join(dir, "m_test.go"), "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n", 0o644)
	a, stderr := autoRun(t, dir, home, goBin+" test ./...")
	if !strings.Contains(a, `Output: ok  \texample.com/m`) || !strings.Contains(a, "Exit code: 0") {
		t.Fatalf("go test did not pass unasked: %s\nstderr: %s", a, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(home, "sandbox-cache", "*", "go-build")); len(m) != 1 {
		t.Errorf("no per-project build cache under ply's home: %v", m)
	}
}

// TestAutoRunsPythonUnittestUnasked is TestAutoRunsGoTestUnasked for a
// Python project.
func TestAutoRunsPythonUnittestUnasked(t *testing.T) {
	requireAutoSandbox(t)
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 here")
	}
	plantHome(t)
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFile(t, filepath.Join(dir, "calc.py"), "def add(a, b):\n    return a + b\n", 0o644)
	writeFile(t, filepath.Join(dir, "test_calc.py"), "import unittest\nimport calc\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n", 0o644)
	a, stderr := autoRun(t, dir, home, py+" -m unittest -v")
	if !strings.Contains(a, "test_add") || !strings.Contains(a, "OK") || !strings.Contains(a, "Exit code: 0") {
		t.Fatalf("python3 -m unittest did not pass unasked: %s\nstderr: %s", a, stderr)
	}
}

// TestAutoSandboxRefusals checks what auto mode's sandbox keeps a command
// from: writing outside the workspace, reading a private key in the home
// directory, opening a socket. Each fails, and its result names the
// sandbox as the reason and says how to ask to run outside it.
func TestAutoSandboxRefusals(t *testing.T) {
	requireAutoSandbox(t)
	key := plantHome(t)
	outside := t.TempDir()
	ln := sandboxtest.Listen(t)
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	for name, c := range map[string]struct{ command, mention string }{
		"write outside": {"echo x > " + filepath.Join(outside, "x"), filepath.Join(outside, "x")},
		"read a key":    {"cat " + key, key},
		"open a socket": {fmt.Sprintf("echo leak > /dev/tcp/127.0.0.1/%d", ln.Port), "/dev/tcp/"},
	} {
		a, _ := autoRun(t, dir, home, c.command)
		if strings.Contains(a, "Exit code: 0") || strings.Contains(a, "planted-secret") {
			t.Errorf("%s: ran: %s", name, a)
		}
		for _, w := range []string{"Sandbox: ", "sandbox", c.mention, "run_outside_sandbox"} {
			if !strings.Contains(a, w) {
				t.Errorf("%s: the result does not mention %q: %s", name, w, a)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write outside landed (stat: %v)", err)
	}
	if s, ok := ln.Received(300 * time.Millisecond); ok {
		t.Errorf("the listener received %q", s)
	}
}

// TestAutoEscalationRefusedHeadless checks that a command asking to run
// outside the sandbox is not run where no one can approve it, that the
// refusal carries the justification, and that an allow rule lets it run.
func TestAutoEscalationRefusedHeadless(t *testing.T) {
	requireAutoSandbox(t)
	outside := t.TempDir()
	dir := t.TempDir()
	marker := filepath.Join(outside, "ran")
	call := mustJSON(map[string]any{"command": "touch " + marker, "run_outside_sandbox": true, "justification": "the test writes a marker outside"})
	run := func(args ...string) string {
		srv := fp.New(t, fp.Turn{fp.ToolCall("c1", "run_shell_command", call)}, fp.Turn{fp.Text("done")})
		r := runPlyHome(t, dir, filepath.Join(t.TempDir(), "home"), srv, append(args, "--approval-mode", "auto", "-p", "x")...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		return toolAnswer(t, srv, "c1")
	}
	a := run()
	if _, err := os.Stat(marker); err == nil || !strings.Contains(a, "outside the sandbox") || !strings.Contains(a, "the test writes a marker outside") {
		t.Fatalf("the escalated call ran or its refusal says not why (stat %v): %s", err, a)
	}
	if a := run("--allowed-tools", "run_shell_command(touch:*)"); strings.Contains(a, "Exit code: 0") == false {
		t.Fatalf("an allow rule did not let it run: %s", a)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the allowed command did not run unconfined: %v", err)
	}
}

// TestAutoWithoutSandboxAsks plays a kernel without Landlock: auto says
// so at start and asks for commands as auto-edit does, so a headless run
// refuses them; nothing runs unconfined.
func TestAutoWithoutSandboxAsks(t *testing.T) {
	saved := core.ReadOnlyAvailable
	t.Cleanup(func() { core.ReadOnlyAvailable = saved })
	core.ReadOnlyAvailable = func() error { return errors.New("the kernel was built without Landlock: function not implemented") }
	dir := t.TempDir()
	a, stderr := autoRun(t, dir, filepath.Join(t.TempDir(), "home"), "touch made")
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Fatalf("the command ran unconfined: %s", a)
	}
	if !strings.Contains(stderr, "approval mode auto") || !strings.Contains(stderr, "without Landlock") {
		t.Errorf("no notice at start: %s", stderr)
	}
	if !strings.Contains(a, "sandbox") {
		t.Errorf("the refusal does not say why: %s", a)
	}
}

// TestAutoSessionRewinds checks that what a command did in auto mode can
// be undone: after rm -rf src and a new file, ply rewind 1 --code puts
// the workspace back as it was before the prompt.
func TestAutoSessionRewinds(t *testing.T) {
	requireAutoSandbox(t)
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "main.go"), "package main\n", 0o644)
	writeFile(t, filepath.Join(dir, "src", "lib", "lib.go"), "package lib\n", 0o644)
	writeFile(t, filepath.Join(dir, "README.md"), "readme\n", 0o644)
	before := treeOf(t, dir)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", mustJSON(map[string]any{"command": "rm -rf src && echo x > new.txt"}))},
		fp.Turn{fp.Text("done")},
	)
	if r := runPlyHome(t, dir, home, srv, "--approval-mode", "auto", "-p", "clean up"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if a := toolAnswer(t, srv, "c1"); !strings.Contains(a, "Exit code: 0") {
		t.Fatalf("the command did not run unasked: %s", a)
	}
	if _, err := os.Stat(filepath.Join(dir, "src")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("src is still there: %v", err)
	}
	r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code")
	if r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sameTree(t, "after rewind 1 --code", treeOf(t, dir), before)
}

// TestAutoModeFromSDKAndACP checks that the SDK's set_permission_mode
// and ACP's session/set_mode reach auto, and that the next request's
// system prompt describes it.
func TestAutoModeFromSDKAndACP(t *testing.T) {
	t.Run("sdk", func(t *testing.T) {
		srv := fp.New(t, fp.Turn{fp.Text("reply")})
		p, code := startSDK(t, t.TempDir(), srv)
		if r := p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "auto"}); r["subtype"] != "success" {
			t.Fatalf("set_permission_mode auto: %v", r)
		}
		p.send(userMsg("go"))
		p.next("result", nil)
		p.exitOf(code)
		if sys := systemText(t, srv.Requests()[0]); !strings.Contains(sys, "# Approval mode: auto\n") {
			t.Errorf("the system prompt is not auto's:\n%s", sys)
		}
	})
	t.Run("acp", func(t *testing.T) {
		dir, home := parityHome(t)
		srv := fp.New(t, fp.Turn{fp.Text("reply")})
		r, ctx, id := startACPSession(t, srv, dir, home)
		if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "auto"}); err != nil {
			t.Fatalf("session/set_mode auto: %v", err)
		}
		if sr := acpPrompt(t, ctx, r, id, "go"); sr != sdk.StopReasonEndTurn {
			t.Fatalf("stop reason %s", sr)
		}
		if sys := systemText(t, srv.Requests()[0]); !strings.Contains(sys, "# Approval mode: auto\n") {
			t.Errorf("the system prompt is not auto's:\n%s", sys)
		}
	})
}
