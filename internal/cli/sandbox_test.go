package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox"
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
	saved := core.SandboxAvailable
	t.Cleanup(func() { core.SandboxAvailable = saved })
	core.SandboxAvailable = func() (int, error) { return 0, errors.New("function not implemented") }

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
	for _, f := range []string{"--sandbox-network", "--sandbox-write-dir=/x"} {
		r := runPly(t, t.TempDir(), nil, "", f, "-p", "go")
		if r.code != 42 || !strings.Contains(r.stderr, "needs --sandbox") {
			t.Errorf("%s: exit %d; stderr:\n%s", f, r.code, r.stderr)
		}
	}
}

// TestSandboxHolesClosed runs, under --sandbox with TMPDIR unset, the
// ways out that were open: a write to /tmp, a UDP datagram to loopback,
// a signal to an unrelated process. Each fails; the private temporary
// directory given instead works and is gone after the run.
func TestSandboxHolesClosed(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	dir := t.TempDir()
	outside := filepath.Join(os.TempDir(), fmt.Sprintf("ply-hole-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.Remove(outside) })
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	v := exec.Command("sleep", "30")
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	vdone := make(chan struct{})
	go func() { _ = v.Wait(); close(vdone) }()
	defer func() { _ = v.Process.Kill(); <-vdone }()

	srv := fp.New(t,
		fp.Turn{fp.ToolCall("tmp", "run_shell_command", mustJSON(map[string]any{"command": "echo x > " + outside}))},
		fp.Turn{fp.ToolCall("priv", "run_shell_command", mustJSON(map[string]any{"command": `echo x > "$TMPDIR/y" && cat "$TMPDIR/y" && echo "tmp=$TMPDIR"`}))},
		fp.Turn{fp.ToolCall("udp", "run_shell_command", mustJSON(map[string]any{"command": fmt.Sprintf("echo s > /dev/udp/127.0.0.1/%d", udp.LocalAddr().(*net.UDPAddr).Port)}))},
		fp.Turn{fp.ToolCall("kill", "run_shell_command", mustJSON(map[string]any{"command": fmt.Sprintf("kill %d", v.Process.Pid)}))},
		fp.Turn{fp.Text("done")},
	)
	r := runPly(t, dir, srv, "", "--sandbox", "-y", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if a := toolAnswer(t, srv, "tmp"); !strings.Contains(a, "Permission denied") {
		t.Errorf("writing /tmp: %s", a)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("%s was written (stat: %v)", outside, err)
	}
	a := toolAnswer(t, srv, "priv")
	i := strings.LastIndex(a, "tmp=")
	if i < 0 {
		t.Fatalf("no TMPDIR printed: %s", a)
	}
	priv, _, _ := strings.Cut(a[i+len("tmp="):], `\n`)
	if !strings.Contains(a, "Exit code: 0") || !strings.HasPrefix(priv, filepath.Join(os.TempDir(), "ply-")) {
		t.Fatalf("the private temporary directory: %s", a)
	}
	if _, err := os.Stat(priv); !os.IsNotExist(err) {
		t.Errorf("the private temporary directory %s outlived the run (stat: %v)", priv, err)
	}
	if a := toolAnswer(t, srv, "udp"); !strings.Contains(a, "Permission denied") {
		t.Errorf("UDP: %s", a)
	}
	_ = udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 16)); err == nil {
		t.Errorf("the UDP listener received %d bytes", n)
	}
	if a := toolAnswer(t, srv, "kill"); !strings.Contains(a, "not permitted") {
		t.Errorf("kill: %s", a)
	}
	select {
	case <-vdone:
		t.Error("the unrelated process was killed")
	default:
	}
}
