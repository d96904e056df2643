package cli

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// tmpfsHomeEnv names, in the test binary started inside a mount
// namespace, the small tmpfs mounted for PLY_HOME.
const tmpfsHomeEnv = "PLY_CLI_TEST_TMPFS_HOME"

// TestFullHomeOnTmpfs runs ply with PLY_HOME on a real file system that
// fills up mid-run: a 1 MiB tmpfs, mounted in a user and mount namespace
// of its own (unshare -rm), so that no privilege is needed. The test
// binary runs itself there; the run inside is fullHomeRuns.
func TestFullHomeOnTmpfs(t *testing.T) {
	if home := os.Getenv(tmpfsHomeEnv); home != "" {
		fullHomeRuns(t, home)
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again in a mount namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare is not installed: no way to mount a small tmpfs without privileges")
	}
	home := t.TempDir()
	probe := exec.Command(unshare, "-rm", "sh", "-c", `mount -t tmpfs -o size=64k tmpfs "$0"`, home)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs in an unprivileged user namespace here (%v: %s): the fault-injection tests cover the same paths", err, bytes.TrimSpace(out))
	}
	cmd := exec.Command(unshare, "-rm", "sh", "-c", `mount -t tmpfs -o size=1m tmpfs "$0" && exec "$@"`,
		home, os.Args[0], "-test.run=^TestFullHomeOnTmpfs$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), tmpfsHomeEnv+"="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the run on a full tmpfs failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestFullHomeOnTmpfs")) {
		t.Fatalf("the run on a full tmpfs did not pass:\n%s", out)
	}
}

// fillUp writes a file under dir until the file system has no room left.
// It runs in the fake provider's handler, so it reports with Errorf.
func fillUp(t *testing.T, dir string) {
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Errorf("filling the tmpfs: %v", err)
		return
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("filling the tmpfs: %v", err)
			}
			return
		}
	}
}

// fullHomeRuns is the body of TestFullHomeOnTmpfs, with PLY_HOME on a
// tmpfs of its own: the disk fills while the model is asked its second
// round, so the reply that asks for b.txt cannot be saved.
func fullHomeRuns(t *testing.T, home string) {
	dir := t.TempDir()
	var n atomic.Int32
	hooks := fp.Hooks{Handler: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 2 {
				fillUp(t, home)
			}
			h.ServeHTTP(w, r)
		})
	}}
	// The second reply is longer than a page, the most a file's last
	// page can still take once the tmpfs is full.
	turns := twoWrites()
	turns[1] = append(fp.Turn{fp.Text(strings.Repeat("Now the second file. ", 1000))}, turns[1]...)
	srv := fp.NewServerWithHooks(hooks, turns...)
	defer srv.Close()
	r := runPlyHome(t, dir, home, srv, "-y", "-o", "stream-json", "-p", "write two files")
	if r.code != 56 {
		t.Fatalf("exit %d, want 56; stderr:\n%s", r.code, r.stderr)
	}
	if res := lastResult(t, r.stdout); res["subtype"] != "error_session_not_saved" ||
		!strings.Contains(res["error"].(string), "no space left on device") {
		t.Fatalf("result %v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("the call of the reply that could not be saved ran")
	}

	// Still full: the next prompt's checkpoint cannot be stored, and the
	// user is told why. Whether its few short lines still fit in the
	// transcript's last page depends on where the last one ended.
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), bytes.Repeat([]byte("new content\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Append(fp.Turn{fp.Text("still here.")})
	r = runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "go on")
	if r.code != 0 && r.code != 56 {
		t.Errorf("exit %d on a full home, want 0 or 56; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "this prompt has no checkpoint") || !strings.Contains(r.stderr, "no space left on device") ||
		strings.Contains(r.stderr, "no such file") {
		t.Errorf("stderr does not say the prompt has no checkpoint for want of space:\n%s", r.stderr)
	}

	// With room again, the resume says records are missing, not that ply
	// crashed while writing.
	if err := os.Remove(filepath.Join(home, "filler")); err != nil {
		t.Fatal(err)
	}
	srv.Append(fp.Turn{fp.Text("resumed.")})
	r = runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "and now")
	if r.code != 0 {
		t.Fatalf("--continue with room: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "could not be saved") && !strings.Contains(r.stderr, "the disk was full") {
		t.Errorf("the resume does not say the session lost records to a full disk:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "session ended while it was being written") {
		t.Errorf("the resume claims a crash:\n%s", r.stderr)
	}
}
