package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// shellConfinedRun runs args as a call the policy auto-approved because
// it only reads.
func shellConfinedRun(t *testing.T, sh *Shell, command string) Result {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"command": command})
	res, err := sh.Execute(WithConfinement(context.Background(), ConfineReadOnly), raw, nil)
	if err != nil {
		t.Fatalf("Execute(%s): %v", command, err)
	}
	return res
}

func requireReadOnlyProfile(t *testing.T) {
	t.Helper()
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		t.Skipf("no read-only profile here: %v", err)
	}
}

// TestShellConfinedMisclassified plays commands the classifier wrongly
// judged read-only: under the read-only profile each fails with
// "Permission denied" (EACCES) or EPERM and nothing reaches its target.
func TestShellConfinedMisclassified(t *testing.T) {
	requireReadOnlyProfile(t)
	sh, ws := shellTestTool(t)

	res := shellConfinedRun(t, sh, "echo x > f")
	if !strings.Contains(res.Output, "Permission denied") || strings.Contains(res.Output, "Exit code: 0") {
		t.Errorf("a write: %s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "f")); !os.IsNotExist(err) {
		t.Errorf("the write happened (stat: %v)", err)
	}

	ln := sandboxtest.Listen(t)
	t.Setenv("PLY_TEST_SECRET", "sekrit")
	res = shellConfinedRun(t, sh, fmt.Sprintf("printenv PLY_TEST_SECRET 1</dev/tcp/127.0.0.1/%d", ln.Port))
	if s, ok := ln.Received(300 * time.Millisecond); ok {
		t.Errorf("the listener received %q", s)
	}
	if strings.Contains(res.Output, "Exit code: 0") {
		t.Errorf("the TCP redirection: %s", res.Output)
	}

	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	res = shellConfinedRun(t, sh, fmt.Sprintf("echo secret > /dev/udp/127.0.0.1/%d", udp.LocalAddr().(*net.UDPAddr).Port))
	_ = udp.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("the UDP listener received %d bytes", n)
	}
	if !strings.Contains(res.Output, "Permission denied") {
		t.Errorf("UDP: %s", res.Output)
	}

	sock := filepath.Join(t.TempDir(), "s")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	// The real interpreter, not a version manager's shim in the home
	// directory, which the profile does not let run; its prefix is made
	// readable as a skill's folder would be.
	if out, err := exec.Command("python3", "-c", "import sys; print(sys.executable); print(sys.base_prefix)").Output(); err == nil {
		py := strings.Fields(string(out))
		for _, d := range py[1:] {
			if err := ws.AddReadOnly(d); err != nil {
				t.Fatal(err)
			}
		}
		res = shellConfinedRun(t, sh, fmt.Sprintf(`%s -c 'import socket; socket.socket(socket.AF_UNIX).connect(%q)'`, py[0], sock))
		if !strings.Contains(res.Output, "PermissionError") {
			t.Errorf("a Unix socket connect: %s", res.Output)
		}
	}

	v := exec.Command("sleep", "30")
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	vdone := make(chan struct{})
	go func() { _ = v.Wait(); close(vdone) }()
	defer func() { _ = v.Process.Kill(); <-vdone }()
	res = shellConfinedRun(t, sh, fmt.Sprintf("kill %d", v.Process.Pid))
	if !strings.Contains(res.Output, "not permitted") {
		t.Errorf("kill of an unrelated process: %s", res.Output)
	}
	select {
	case <-vdone:
		t.Error("the unrelated process died")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestShellConfinedReads checks that the profile lets read-only commands
// do their work: read, list, search, use a temporary file, run git.
func TestShellConfinedReads(t *testing.T) {
	t.Parallel()
	requireReadOnlyProfile(t)
	sh, _ := shellTestTool(t)
	res := shellConfinedRun(t, sh, `cat sub/file.txt && ls sub && grep -r hi . >/dev/null && sort <<< "b
a" && t=$(mktemp) && echo tmp > "$t" && cat "$t" && printenv GIT_CONFIG_COUNT`)
	if res.IsError || !strings.Contains(res.Output, "Exit code: 0") || !strings.Contains(res.Output, "tmp") {
		t.Fatalf("read-only work under the profile: %s", res.Output)
	}
	// An unconfined call is not restricted.
	res = searchTestRun(t, sh, map[string]any{"command": "echo x > f && cat f"})
	if !strings.Contains(res.Output, "Exit code: 0") {
		t.Fatalf("an approved write: %s", res.Output)
	}
}

// TestShellConfinedGitConfig checks that a repository's own settings that
// run programs are overridden for a confined command, and that the
// user's GIT_EXTERNAL_DIFF does not reach it.
func TestShellConfinedGitConfig(t *testing.T) {
	requireReadOnlyProfile(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	sh, ws := shellTestTool(t)
	setup := exec.Command("sh", "-c", `git init -q && git config core.fsmonitor "touch fsmonitor-ran" && git config core.pager "touch pager-ran"`)
	setup.Dir = ws.Root()
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Setenv("GIT_EXTERNAL_DIFF", "touch ext-ran")
	res := shellConfinedRun(t, sh, `git config core.fsmonitor; git config core.pager; printenv GIT_EXTERNAL_DIFF; git status >/dev/null; echo done`)
	if !strings.Contains(res.Output, "false\ncat\ndone") {
		t.Errorf("git's settings under confinement:\n%s", res.Output)
	}
	if got := confineEnviron([]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "TMPDIR=/tmp", "A=1"}, []string{"B=2"}, "/t"); strings.Join(got, " ") != "A=1 B=2 TMPDIR=/t" {
		t.Errorf("confineEnviron = %q", got)
	}
}

// TestShellConfinedReadsOnlyWorkspace checks what the read-only profile
// lets a command read: the workspace and the folders made readable to the
// read tools, not the home directory's secrets.
func TestShellConfinedReadsOnlyWorkspace(t *testing.T) {
	requireReadOnlyProfile(t)
	sh, ws := shellTestTool(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	secret := filepath.Join(home, ".aws", "credentials")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("aws-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	skill := t.TempDir()
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("skill-text"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.AddReadOnly(skill); err != nil {
		t.Fatal(err)
	}
	res := shellConfinedRun(t, sh, "cat sub/file.txt "+filepath.Join(skill, "SKILL.md"))
	if !strings.Contains(res.Output, "hi") || !strings.Contains(res.Output, "skill-text") {
		t.Errorf("the workspace and a readable folder: %s", res.Output)
	}
	res = shellConfinedRun(t, sh, "cat "+secret)
	if strings.Contains(res.Output, "aws-secret") || !strings.Contains(res.Output, "Permission denied") {
		t.Errorf("a secret in the home directory: %s", res.Output)
	}
}
