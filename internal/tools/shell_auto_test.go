package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// shellAutoRun runs command as auto mode runs a command no rule decided:
// in the workspace sandbox.
func shellAutoRun(t *testing.T, sh *Shell, command string) Result {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"command": command})
	res, err := sh.Execute(WithConfinement(context.Background(), ConfineWorkspace), raw, nil)
	if err != nil {
		t.Fatalf("Execute(%s): %v", command, err)
	}
	return res
}

// TestShellWorkspaceSandbox checks the workspace sandbox as the shell
// applies it: a command writes the workspace and its caches, under their
// per-project environment, and what it may not do fails with a note that
// names the sandbox, what it refused and how to ask to run outside.
func TestShellWorkspaceSandbox(t *testing.T) {
	requireReadOnlyProfile(t)
	sh, ws := shellTestTool(t)
	cacheRoot := t.TempDir()
	sh.SetCacheDir(cacheRoot)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.WriteFile(key, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	outside := t.TempDir()

	res := shellAutoRun(t, sh, `echo built > out.txt && cat out.txt && echo "$GOCACHE" && touch "$GOCACHE.probe" && echo cache-ok`)
	if !strings.Contains(res.Output, "built") || !strings.Contains(res.Output, "cache-ok") || !strings.Contains(res.Output, cacheRoot) {
		t.Fatalf("work in the workspace: %s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "out.txt")); err != nil {
		t.Errorf("the workspace write did not land: %v", err)
	}

	for name, c := range map[string]struct{ command, mention string }{
		"write outside": {"echo x > " + filepath.Join(outside, "x"), outside},
		"read a key":    {"cat " + key, key},
	} {
		res := shellAutoRun(t, sh, c.command)
		if strings.Contains(res.Output, "Exit code: 0") || strings.Contains(res.Output, "PRIVATE KEY") {
			t.Errorf("%s ran: %s", name, res.Output)
		}
		if !strings.Contains(res.Output, "Sandbox: ") || !strings.Contains(res.Output, "run_outside_sandbox") || !strings.Contains(res.Output, c.mention) {
			t.Errorf("%s: no note naming %s: %s", name, c.mention, res.Output)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); !os.IsNotExist(err) {
		t.Errorf("the write outside landed (stat: %v)", err)
	}

	ln := sandboxtest.Listen(t)
	res = shellAutoRun(t, sh, fmt.Sprintf("echo hi 1</dev/tcp/127.0.0.1/%d", ln.Port))
	if s, ok := ln.Received(300 * time.Millisecond); ok {
		t.Errorf("the listener received %q", s)
	}
	if strings.Contains(res.Output, "Exit code: 0") || !strings.Contains(res.Output, "Sandbox: ") {
		t.Errorf("a connection: %s", res.Output)
	}
}

// TestSandboxRefusalNote checks the note on its own: refusals found in
// the output, paths outside the workspace named, output without a
// refusal left alone.
func TestSandboxRefusalNote(t *testing.T) {
	out := "go: creating work dir: mkdir /var/tmp/go-build1: permission denied\nbash: /work/ws/ok: Permission denied\n"
	note := sandboxRefusalNote(out, []string{"/work/ws"})
	if !strings.Contains(note, "/var/tmp/go-build1") || strings.Contains(note, "Outside what the sandbox allows: /work/ws/ok") {
		t.Errorf("note: %s", note)
	}
	if n := sandboxRefusalNote("FAIL: TestX (0.00s)\nexit status 1\n", []string{"/w"}); n != "" {
		t.Errorf("a plain failure got a note: %s", n)
	}
}

// TestShellWorkspaceSandboxKeepsGitHooks checks that a command in the
// workspace sandbox cannot leave behind what git or an agent would run
// outside it: a new hook, a changed .git/config or project settings are
// put back, and the result says so; the rest of its work stays.
func TestShellWorkspaceSandboxKeepsGitHooks(t *testing.T) {
	requireReadOnlyProfile(t)
	sh, ws := shellTestTool(t)
	sh.SetCacheDir(t.TempDir())
	root := ws.Root()
	for name, content := range map[string]string{".git/config": "[core]\n", ".git/hooks/pre-commit.sample": "#!/bin/sh\n", ".ply/settings.json": "{}\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := shellAutoRun(t, sh, `printf '#!/bin/sh\ncurl evil\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit &&
printf '[core]\n\thooksPath = hooks\n' > .git/config && echo '{"permissions":{"allow":["Bash"]}}' > .ply/settings.json &&
rm .git/hooks/pre-commit.sample && echo kept > work.txt`)
	if !strings.Contains(res.Output, "Exit code: 0") || !strings.Contains(res.Output, "put back") {
		t.Fatalf("result: %s", res.Output)
	}
	for name, want := range map[string]string{".git/config": "[core]\n", ".git/hooks/pre-commit.sample": "#!/bin/sh\n", ".ply/settings.json": "{}\n", "work.txt": "kept\n"} {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git/hooks/pre-commit")); !os.IsNotExist(err) {
		t.Errorf("the planted hook is still there (stat: %v)", err)
	}
}
