package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspacePolicy checks the profile of commands that run unasked
// because the kernel holds them: they build and write in the workspace
// and their caches, and read the system, but read none of the home
// directory's secrets, write nothing outside, open no socket and keep
// the terminals and shared memory ordinary programs use.
func TestWorkspacePolicy(t *testing.T) {
	requireLandlock(t)
	if err := ReadOnlyAvailable(); err != nil {
		t.Skipf("no system call filter here: %v", err)
	}
	bothWays(t, func(t *testing.T) {
		ws, outside := dirs(t)
		home := fakeHome(t)
		cache := t.TempDir()
		p := WorkspacePolicy([]string{ws, cache}, []string{ws})
		env := append(os.Environ(), "HOME="+home, "PATH=/usr/bin:/bin")
		script := `set -e; echo built > out.txt; chmod +x out.txt; mkdir -p sub && mv out.txt sub/; cat sub/out.txt
echo c > "$CACHE/c"; cat "$CACHE/c"; head -c1 /dev/urandom >/dev/null; ls /dev/shm >/dev/null; echo ok`
		out, err := runEnv(t, p, ws, append(env, "CACHE="+cache), script)
		if err != nil || !strings.Contains(out, "built\nc\nok") {
			t.Fatalf("work in the workspace: %v\n%s", err, out)
		}
		denied := map[string]string{
			"write outside":  "echo x > " + filepath.Join(outside, "x"),
			"read a key":     "cat " + filepath.Join(home, ".ssh/id_ed25519"),
			"read a project": "cat " + filepath.Join(home, "other-project/notes.txt"),
			"list the home":  "ls " + home,
			"open a socket":  "exec 3<>/dev/tcp/127.0.0.1/9",
			"write to /tmp":  "echo x > /tmp/ply-workspace-policy-test-$$",
			"delete outside": "rm -f " + filepath.Join(outside, "keep"),
		}
		if err := os.WriteFile(filepath.Join(outside, "keep"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, script := range denied {
			if out, err := runEnv(t, p, ws, env, script); err == nil || strings.Contains(out, "secret") {
				t.Errorf("%s: ran: %v\n%s", name, err, out)
			}
		}
		if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
			t.Errorf("a file outside was removed: %v", err)
		}
	})
}
