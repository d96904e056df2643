package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// requireRoot skips tests of the powers only root has.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: checks that root's powers are gone")
	}
}

// expect checks the probe's results against want.
func expect(t *testing.T, got map[string]string, want map[string]string) {
	t.Helper()
	for op, w := range want {
		if got[op] != w {
			t.Errorf("%s: %q, want %q", op, got[op], w)
		}
	}
}

// metadataTarget creates a file owned by another user, with a known mode,
// times and no extended attribute, in dir, and returns a function that
// reports what about it changed.
func metadataTarget(t *testing.T, dir string) (path string, changed func() string) {
	t.Helper()
	path = filepath.Join(dir, "target")
	// Readable by all, so that calls on an open file get past open(2).
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	var before unix.Stat_t
	if err := unix.Stat(path, &before); err != nil {
		t.Fatal(err)
	}
	return path, func() string {
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			return err.Error()
		}
		var what []string
		if st.Mode != before.Mode {
			what = append(what, "mode")
		}
		if st.Uid != before.Uid || st.Gid != before.Gid {
			what = append(what, "owner")
		}
		if st.Mtim != before.Mtim {
			what = append(what, "mtime")
		}
		if n, _ := unix.Getxattr(path, "user.ply", nil); n > 0 {
			what = append(what, "xattr")
		}
		return strings.Join(what, ",")
	}
}

// TestReadOnlyDeniesMetadata checks that an auto-approved command cannot
// change a file's mode, owner, times or extended attributes, which
// Landlock does not cover, even as root and even in its own workspace.
func TestReadOnlyDeniesMetadata(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	bothWays(t, func(t *testing.T) {
		ws, _ := dirs(t)
		f, changed := metadataTarget(t, ws)
		p := ReadOnlyPolicy(t.TempDir())
		p.ReadableDirs = []string{ws}
		got := probeRun(t, p, nil, "chmod:"+f, "fchmod:"+f, "chown:"+f, "fchown:"+f, "utimes:"+f, "setxattr:"+f, "chattr:"+f)
		expect(t, got, map[string]string{"chmod": "EPERM", "fchmod": "EPERM", "chown": "EPERM", "fchown": "EPERM",
			"utimes": "EPERM", "setxattr": "ENOTSUP", "chattr": "EPERM"})
		if c := changed(); c != "" {
			t.Errorf("the file's %s changed", c)
		}
	})
}

// TestSandboxMetadata checks --sandbox's middle way: mode and times stay
// changeable (chmod +x and touch in the workspace are ordinary), extended
// attributes do not, and without capabilities root cannot give a file
// away.
func TestSandboxMetadata(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	bothWays(t, func(t *testing.T) {
		ws, _ := dirs(t)
		own := filepath.Join(ws, "own")
		if err := os.WriteFile(own, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		other, changed := metadataTarget(t, ws)
		p := Policy{WritableDirs: []string{ws}, ScopeSignals: true}
		got := probeRun(t, p, nil, "chmod:"+own, "utimes:"+own, "setxattr:"+own, "fchown:"+other, "chattr:"+own)
		expect(t, got, map[string]string{"chmod": "ok", "utimes": "ok", "setxattr": "ENOTSUP", "fchown": "EPERM", "chattr": "EPERM"})
		if c := changed(); c != "" {
			t.Errorf("the other user's file's %s changed", c)
		}
	})
}

// TestSystemCallsDenied checks, in both profiles, that root's system-wide
// powers are gone and that the command can change only its own limits
// and priority, not ply's.
func TestSystemCallsDenied(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	ws, _ := dirs(t)
	pid, _ := victim(t)
	v := strconv.Itoa(pid)
	for name, p := range map[string]Policy{
		"readonly": ReadOnlyPolicy(t.TempDir()),
		"sandbox":  {WritableDirs: []string{ws}, ScopeSignals: true},
	} {
		t.Run(name, func(t *testing.T) {
			bothWays(t, func(t *testing.T) {
				got := probeRun(t, p, nil, "reboot", "sethostname", "settimeofday", "shmget", "keyctl",
					"prlimit:"+v, "setpriority:"+v, "prlimitself:0", "setpriorityself:0")
				expect(t, got, map[string]string{"reboot": "EPERM", "sethostname": "EPERM", "settimeofday": "EPERM",
					"shmget": "EPERM", "keyctl": "EPERM", "prlimit": "EPERM", "setpriority": "EPERM",
					"prlimitself": "ok", "setpriorityself": "ok"})
			})
		})
	}
}

// TestNamespacesReadOnly checks that an auto-approved command cannot
// create namespaces, while a --sandbox command can (browsers' own
// sandboxes need them; Landlock and the filter stay in force inside).
func TestNamespacesReadOnly(t *testing.T) {
	requireLandlock(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	bothWays(t, func(t *testing.T) {
		ws, _ := dirs(t)
		out, err := run(t, ReadOnlyPolicy(""), ws, "unshare -U true && echo made")
		if err == nil || strings.Contains(out, "made") {
			t.Errorf("read-only: a user namespace was made: %v\n%s", err, out)
		}
		if !userNamespacesForAll() {
			t.Log("this kernel keeps user namespaces from unprivileged users: the --sandbox half is skipped")
			return
		}
		if out, err := run(t, Policy{WritableDirs: []string{ws}}, ws, "unshare -U true && echo made"); err != nil || !strings.Contains(out, "made") {
			t.Errorf("--sandbox: no user namespace: %v\n%s", err, out)
		}
	})
}

// userNamespacesForAll reports whether a process without capabilities
// may create a user namespace here.
func userNamespacesForAll() bool {
	for file, deny := range map[string]string{
		"/proc/sys/user/max_user_namespaces":                     "0",
		"/proc/sys/kernel/unprivileged_userns_clone":             "0",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
	} {
		if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) == deny {
			return false
		}
	}
	return true
}

// TestCapabilitiesDropped checks that a confined command has no
// capability left, even started by root: it cannot read another user's
// private file or the environment of a non-dumpable process (ply makes
// itself one), in the sandbox or outside it.
func TestCapabilitiesDropped(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	ws, _ := dirs(t)
	private := filepath.Join(ws, "private")
	if err := os.WriteFile(private, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(private, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	held := heldOutside(t)
	ro := ReadOnlyPolicy(t.TempDir())
	ro.ReadableDirs = []string{ws}
	for name, p := range map[string]Policy{"readonly": ro, "sandbox": {WritableDirs: []string{ws}, ScopeSignals: true}} {
		t.Run(name, func(t *testing.T) {
			bothWays(t, func(t *testing.T) {
				got := probeRun(t, p, nil, "caps", "read:"+private, "peek", "peekoutside:"+strconv.Itoa(held))
				expect(t, got, map[string]string{"caps": "ok", "read": "EACCES", "peek": "EACCES", "peekoutside": "EACCES"})
			})
		})
	}
}

// heldOutside starts an unconfined non-dumpable process carrying a secret
// in its environment and returns its pid.
func heldOutside(t *testing.T) int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), probeEnv+"=hold", "PLY_SECRET=hidden")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	b := make([]byte, 5)
	if _, err := io.ReadFull(out, b); err != nil || string(b) != "held\n" {
		t.Fatalf("the held process said %q, %v", b, err)
	}
	return cmd.Process.Pid
}
