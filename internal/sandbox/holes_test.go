package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// udpListener returns a loopback UDP socket and a function that reports
// whether anything arrived on it within a short wait.
func udpListener(t *testing.T) (port int, received func() bool) {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.LocalAddr().(*net.UDPAddr).Port, func() bool {
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		buf := make([]byte, 64)
		n, _, err := c.ReadFrom(buf)
		return err == nil && n > 0
	}
}

// unixListener returns the path of a listening Unix socket outside any
// sandbox and a function that reports whether a client connected.
func unixListener(t *testing.T) (path string, connected func() bool) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan struct{}, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
		got <- struct{}{}
	}()
	return path, func() bool {
		select {
		case <-got:
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	}
}

// victim starts an unrelated process that a confined command will try to
// kill, and reports whether it is still alive.
func victim(t *testing.T) (pid int, alive func() bool) {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	return cmd.Process.Pid, func() bool {
		select {
		case <-done:
			return false
		case <-time.After(100 * time.Millisecond):
			return true
		}
	}
}

// holeScripts are the ways out that a confined command without network
// must not have: a datagram to a loopback listener, a connection to a
// Unix socket file, a signal to an unrelated process.
func checkHoles(t *testing.T, p Policy, ws string) {
	t.Helper()
	port, received := udpListener(t)
	out, err := run(t, p, ws, fmt.Sprintf(`echo secret > /dev/udp/127.0.0.1/%d && echo sent`, port))
	if err == nil || strings.Contains(out, "sent") || received() {
		t.Errorf("UDP to 127.0.0.1 got through: %v\n%s", err, out)
	}
	sock, connected := unixListener(t)
	py := fmt.Sprintf(`import socket; s=socket.socket(socket.AF_UNIX); s.connect(%q); print("connected")`, sock)
	if py3, dirs := python(t); py3 != "" {
		p.ReadableDirs = append(p.ReadableDirs, dirs...)
		out, err = run(t, p, ws, py3+" -c '"+py+"'")
		if err == nil || strings.Contains(out, "connected") || connected() {
			t.Errorf("connecting to a Unix socket file got through: %v\n%s", err, out)
		}
	} else {
		t.Log("no python3: the Unix socket check is skipped")
	}
	pid, alive := victim(t)
	out, err = run(t, p, ws, fmt.Sprintf("kill -TERM %d && echo killed", pid))
	if err == nil || strings.Contains(out, "killed") || !alive() {
		t.Errorf("killing an unrelated process got through: %v\n%s", err, out)
	}
}

// TestSandboxHoles checks that --sandbox's policy (no network) blocks
// UDP, Unix-socket connects and signals to processes outside the sandbox.
func TestSandboxHoles(t *testing.T) {
	requireLandlock(t)
	bothWays(t, func(t *testing.T) {
		ws, _ := dirs(t)
		checkHoles(t, Policy{WritableDirs: []string{ws}, ScopeSignals: true}, ws)
	})
}

// TestStartLeavesProcessUnconfined starts confined commands from
// discarded threads, then checks that every thread of this process can
// still write files and connect sockets.
func TestStartLeavesProcessUnconfined(t *testing.T) {
	requireLandlock(t)
	bothWays(t, func(t *testing.T) {
		ws, outside := dirs(t)
		for range 10 {
			if out, err := run(t, ReadOnlyPolicy(""), ws, "true"); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
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
		errs := make(chan error, 64)
		for i := range 64 {
			go func() {
				if err := os.WriteFile(filepath.Join(outside, fmt.Sprint(i)), []byte("x"), 0o644); err != nil {
					errs <- err
					return
				}
				c, err := net.Dial("tcp4", ln.Addr().String())
				if err == nil {
					c.Close()
				}
				errs <- err
			}()
		}
		for range 64 {
			if err := <-errs; err != nil {
				t.Fatalf("this process was confined: %v", err)
			}
		}
	})
}

// TestReadOnlyProfile checks the profile of auto-approved commands: no
// write anywhere but the private temporary directory, no network of any
// kind, no signal outside.
func TestReadOnlyProfile(t *testing.T) {
	requireLandlock(t)
	bothWays(t, testReadOnlyProfile)
}

func testReadOnlyProfile(t *testing.T) {
	ws, _ := dirs(t)
	tmp := t.TempDir()
	p := ReadOnlyPolicy(tmp)
	out, err := run(t, p, ws, "echo x > f")
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Errorf("a write in the working directory: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "f")); !os.IsNotExist(err) {
		t.Errorf("the file was written (stat: %v)", err)
	}
	p.ReadableDirs = []string{ws}
	if out, err := run(t, p, ws, "cat /etc/hostname >/dev/null; ls . >/dev/null && echo x > "+filepath.Join(tmp, "t")+" && echo ok"); err != nil || !strings.Contains(out, "ok") {
		t.Errorf("reading, /dev/null and the private temporary directory: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			accepted <- struct{}{}
		}
	}()
	out, err = run(t, p, ws, fmt.Sprintf("X=secret printenv X 1</dev/tcp/127.0.0.1/%d && echo sent", ln.Addr().(*net.TCPAddr).Port))
	select {
	case <-accepted:
		t.Errorf("the TCP listener got a connection; output %s", out)
	case <-time.After(200 * time.Millisecond):
	}
	if err == nil || strings.Contains(out, "sent") {
		t.Errorf("TCP connect: %v\n%s", err, out)
	}
	checkHoles(t, p, ws)
}

func TestGuardToken(t *testing.T) {
	env := withGuardToken([]string{"A=1", "PLY_GUARD=outer"}, "inner")
	if strings.Join(env, " ") != "A=1 PLY_GUARD=outer:inner" {
		t.Fatalf("env %q", env)
	}
	environ := []byte("A=1\x00PLY_GUARD=outer:inner\x00B=2\x00")
	if !hasGuardToken(environ, "outer") || !hasGuardToken(environ, "inner") || hasGuardToken(environ, "inn") || hasGuardToken([]byte("X=inner\x00"), "inner") {
		t.Fatal("hasGuardToken")
	}
	if env := withGuardToken(nil, "t"); len(env) != 1 || env[0] != "PLY_GUARD=t" {
		t.Fatalf("env %q", env)
	}
}

// TestSocketpair checks the filter's exception: a stream pair works (it
// reaches nothing outside), a datagram pair, which could send to any
// socket file by name, does not.
func TestSocketpair(t *testing.T) {
	requireLandlock(t)
	py3, pyDirs := python(t)
	if py3 == "" {
		t.Skip("no python3")
	}
	ws, _ := dirs(t)
	p := ReadOnlyPolicy("")
	p.ReadableDirs = pyDirs
	out, err := run(t, p, ws, py3+` -c '
import socket
a, b = socket.socketpair(); a.send(b"x"); print("stream", b.recv(1))
try:
    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print("dgram ok")
except PermissionError:
    print("dgram denied")'`)
	if err != nil || !strings.Contains(out, "stream b'x'") || !strings.Contains(out, "dgram denied") {
		t.Fatalf("%v: %s", err, out)
	}
}

// python returns the real python3 executable (not a version manager's
// shim) and the directories a read-only command must read to run it; ""
// when there is none.
func python(t *testing.T) (exe string, dirs []string) {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable); print(sys.base_prefix); print(sys.prefix)").Output()
	if err != nil {
		return "", nil
	}
	lines := strings.Fields(string(out))
	if len(lines) != 3 {
		return "", nil
	}
	return lines[0], append([]string{filepath.Dir(lines[0])}, lines[1:]...)
}
