package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the helper, as ply's main does:
// Wrap starts os.Executable(), which here is this binary.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	maybeRunProbe()
	os.Exit(m.Run())
}

// requireLandlock skips the test, saying why, when the kernel cannot
// confine anything.
func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, err := Available()
	if err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	return abi
}

// run runs script under bash confined by p and returns its combined
// output and error.
func run(t *testing.T, p Policy, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startConfined(cmd, p); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	return out.String(), err
}

// startConfined is how run starts a confined command; bothWays switches
// it.
var startConfined = startThroughHelper

func startThroughHelper(cmd *exec.Cmd, p Policy) error {
	if err := Wrap(cmd, p); err != nil {
		return err
	}
	return cmd.Start()
}

// bothWays runs f with commands confined through the helper and from a
// discarded thread (Start).
func bothWays(t *testing.T, f func(t *testing.T)) {
	for name, start := range map[string]func(*exec.Cmd, Policy) error{"helper": startThroughHelper, "thread": Start} {
		t.Run(name, func(t *testing.T) {
			startConfined = start
			defer func() { startConfined = startThroughHelper }()
			f(t)
		})
	}
}

// dirs returns a workspace and an "outside" directory that are disjoint:
// neither contains the other, and the policy names only the workspace.
func dirs(t *testing.T) (ws, outside string) {
	base := t.TempDir()
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestWrites(t *testing.T) { bothWays(t, testWrites) }

func testWrites(t *testing.T) {
	requireLandlock(t)
	ws, outside := dirs(t)
	p := Policy{WritableDirs: []string{ws}}

	if out, err := run(t, p, ws, `echo x > inside && mkdir sub && mv inside sub/moved && echo x > /dev/null`); err != nil {
		t.Fatalf("writing inside the workspace failed: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "sub", "moved")); err != nil || string(b) != "x\n" {
		t.Fatalf("inside file: %q, %v", b, err)
	}

	target := filepath.Join(outside, "f")
	out, err := run(t, p, ws, "echo x > "+target)
	if err == nil {
		t.Fatalf("writing outside the workspace succeeded; output:\n%s", out)
	}
	if !strings.Contains(out, "Permission denied") {
		t.Errorf("output %q does not say permission denied", out)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("%s exists after a denied write (stat: %v)", target, err)
	}

	// Reading outside stays possible: the sandbox is about writes.
	if err := os.WriteFile(filepath.Join(outside, "r"), []byte("readable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, p, ws, "cat "+filepath.Join(outside, "r")); err != nil || out != "readable" {
		t.Fatalf("reading outside: %q, %v", out, err)
	}
}

// TestChildrenConfined checks that the restriction reaches every process
// the command starts, however it starts them.
func TestChildrenConfined(t *testing.T) { bothWays(t, testChildrenConfined) }

func testChildrenConfined(t *testing.T) {
	requireLandlock(t)
	ws, outside := dirs(t)
	p := Policy{WritableDirs: []string{ws}}
	target := filepath.Join(outside, "child")
	script := fmt.Sprintf(`sh -c 'touch %[1]s' ; (setsid sh -c 'touch %[1]s.2') ; nohup sh -c 'touch %[1]s.3' >/dev/null 2>&1 & wait; touch ok`, target)
	if out, err := run(t, p, ws, script); err != nil {
		t.Fatalf("the script failed: %v\n%s", err, out)
	}
	for _, f := range []string{target, target + ".2", target + ".3"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("a child wrote %s (stat: %v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the script did not finish inside the workspace: %v", err)
	}
}

func TestNetwork(t *testing.T) { bothWays(t, testNetwork) }

func testNetwork(t *testing.T) {
	abi := requireLandlock(t)
	if abi < NetworkABI {
		t.Skipf("Landlock ABI %d cannot restrict TCP (needs %d)", abi, NetworkABI)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	ws, _ := dirs(t)
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)

	out, err := run(t, Policy{WritableDirs: []string{ws}}, ws, script)
	if err == nil || strings.Contains(out, "connected") {
		t.Fatalf("connecting with the network off succeeded: %v\n%s", err, out)
	}
	out, err = run(t, Policy{WritableDirs: []string{ws}, AllowNetwork: true}, ws, script)
	if err != nil || !strings.Contains(out, "connected") {
		t.Fatalf("connecting with the network allowed failed: %v\n%s", err, out)
	}
}

// TestWrapKeepsCommand checks what Wrap changes and what it keeps.
func TestWrapKeepsCommand(t *testing.T) {
	cmd := exec.Command("bash", "-c", "exit 3")
	cmd.Dir = "/"
	cmd.Env = []string{"A=1"}
	if err := Wrap(cmd, Policy{WritableDirs: []string{"/tmp"}}); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	if cmd.Path != self || cmd.Args[1] != helperArg || cmd.Args[3] != "--" {
		t.Fatalf("wrapped as %q %q", cmd.Path, cmd.Args)
	}
	if got := cmd.Args[5:]; len(got) != 3 || got[0] != "bash" || got[2] != "exit 3" {
		t.Fatalf("argv %q", got)
	}
	if cmd.Dir != "/" || len(cmd.Env) != 2 || cmd.Env[0] != "A=1" || cmd.Env[1] != helperEnv {
		t.Fatalf("dir %q env %q", cmd.Dir, cmd.Env)
	}
	if err := Wrap(exec.Command("bash"), Policy{WritableDirs: []string{"rel"}}); err == nil {
		t.Fatal("a relative writable directory was accepted")
	}
	if err := Wrap(exec.Command("bash"), Policy{ReadableDirs: []string{"rel"}}); err == nil {
		t.Fatal("a relative readable directory was accepted")
	}
	if err := Start(exec.Command("bash"), Policy{ReadableDirs: []string{"rel"}}); err == nil {
		t.Fatal("Start accepted a relative readable directory")
	}
	if err := Wrap(exec.Command("no-such-program-ply"), Policy{}); err == nil {
		t.Fatal("a missing program was accepted")
	}
}

// TestExitStatusAndEnv checks that the command's exit status is its own
// and that the helper's marker does not leak into its environment.
func TestExitStatusAndEnv(t *testing.T) {
	requireLandlock(t)
	ws, _ := dirs(t)
	out, err := run(t, Policy{WritableDirs: []string{ws}}, ws, `env | grep -c PLY_SANDBOX_HELPER; exit 7`)
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 7 {
		t.Fatalf("exit %v, want 7; output %q", err, out)
	}
	if strings.TrimSpace(out) != "0" {
		t.Fatalf("the marker leaked into the command's environment: %q", out)
	}
}

func TestHelperArgs(t *testing.T) {
	if _, _, _, err := parseHelperArgs([]string{"{}", "x"}); err == nil {
		t.Fatal("short arguments accepted")
	}
	if _, _, _, err := parseHelperArgs([]string{"{", "--", "/bin/true", "true"}); err == nil {
		t.Fatal("bad JSON accepted")
	}
	sp, path, argv, err := parseHelperArgs([]string{`{"policy":{"writable_dirs":["/w"],"allow_network":true}}`, "--", "/bin/true", "true", "a"})
	if err != nil || path != "/bin/true" || len(argv) != 2 || sp.Policy == nil || !sp.Policy.AllowNetwork || sp.Policy.WritableDirs[0] != "/w" {
		t.Fatalf("%+v %q %q %v", sp, path, argv, err)
	}
	if sp, _, _, err := parseHelperArgs([]string{`{}`, "--", "/bin/true", "true"}); err != nil || sp.Policy != nil {
		t.Fatalf("an empty spec: %+v %v", sp, err)
	}
}
