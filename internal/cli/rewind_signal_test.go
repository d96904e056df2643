//go:build unix

package cli

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/checkpoint"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// startPausedRewind starts `ply rewind args...` as a process, with the
// signal handling of ply's main, and waits until its restore pauses
// after its tenth change (checkpoint.PauseEnv). Removing the returned
// file lets it go on; lines gets what it writes on stderr.
func startPausedRewind(t *testing.T, dir, home string, args ...string) (cmd *exec.Cmd, pause string, lines <-chan string) {
	t.Helper()
	pause = filepath.Join(t.TempDir(), "paused")
	cmd = exec.Command(os.Args[0], append([]string{"rewind"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), runPlyMainEnv+"=1", "PLY_HOME="+home, checkpoint.PauseEnv+"="+pause)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	if !sandboxtest.WaitFile(pause, 30*time.Second) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the rewind never paused in the middle of its restore")
	}
	return cmd, pause, ch
}

// waitLine returns when a line holding want arrives, failing at the end
// of the lines or after a generous deadline.
func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended without %q", want)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q on stderr", want)
		}
	}
}

// A signal in the middle of a restore waits until the files are restored
// and the rewind recorded; the process then ends as the signal says:
// exit 130 for SIGINT and SIGTERM, ended by SIGHUP for SIGHUP. No
// journal is left, and the rewind can be undone.
func TestSignalDuringRewindFinishesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ply as a process and signals it")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			if sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				t.Skip("SIGHUP is ignored in this process (started under nohup?): ply inherits that, and rightly goes on")
			}
			dir, home, _, treeA, treeB := rewindFixture(t, func(string) []fp.Turn { return nil })
			cmd, pause, lines := startPausedRewind(t, dir, home, "1", "--code")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waitLine(t, lines, "is finished first")
			os.Remove(pause)
			for range lines {
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("rewind ended with %v, want the signal's status", err)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if sig == syscall.SIGHUP && (!ws.Signaled() || ws.Signal() != sig) || sig != syscall.SIGHUP && ws.ExitStatus() != 130 {
				t.Fatalf("rewind ended with %v, want the status of %v", ws, sig)
			}
			sameTree(t, "after the signalled rewind", treeOf(t, dir), treeA)
			r := runPlyHome(t, dir, home, nil, "rewind", "--list")
			if r.code != 0 || strings.Contains(r.stderr, "interrupted") {
				t.Fatalf("--list after the rewind: exit %d\n%s", r.code, r.stderr)
			}
			if r := runPlyHome(t, dir, home, nil, "rewind", "--undo"); r.code != 0 {
				t.Fatalf("--undo: exit %d\n%s", r.code, r.stderr)
			}
			sameTree(t, "after the undo", treeOf(t, dir), treeB)
		})
	}
}

// SIGKILL in the middle of a restore leaves the tree half restored: the
// next session and ply rewind say so, and a rewind made after work on
// that tree can be undone, the work included.
func TestSIGKILLDuringRewindLosesNoLaterWork(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ply as a process and kills it")
	}
	dir, home, srv, treeA, treeB := rewindFixture(t, func(dir string) []fp.Turn {
		return []fp.Turn{
			{fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(dir, "work.txt"), "content": "later work\n"}))},
			{fp.Text("three done")},
		}
	})
	cmd, _, _ := startPausedRewind(t, dir, home, "1", "--code")
	cmd.Process.Kill()
	cmd.Wait()
	mixed := treeOf(t, dir)
	if mixed["f/000.txt"] == treeB["f/000.txt"] || mixed["f/199.txt"] == treeA["f/199.txt"] {
		t.Fatalf("the rewind was not killed half-way: f/000.txt %q, f/199.txt %q", mixed["f/000.txt"], mixed["f/199.txt"])
	}
	r := runPlyHome(t, dir, home, nil, "rewind", "--list")
	if r.code != 0 || !strings.Contains(r.stderr, "ply rewind --finish") {
		t.Fatalf("--list does not say the rewind is half done: exit %d\n%s", r.code, r.stderr)
	}
	r = runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "three: write work.txt")
	if r.code != 0 || !strings.Contains(r.stderr, "a rewind was interrupted") {
		t.Fatalf("the next prompt does not say the rewind is half done: exit %d\n%s", r.code, r.stderr)
	}
	withWork := treeOf(t, dir)
	if withWork["work.txt"] == "" {
		t.Fatalf("prompt 3 did not write work.txt:\n%s", r.stderr)
	}
	if r := runPlyHome(t, dir, home, nil, "rewind", "3", "--code"); r.code != 0 {
		t.Fatalf("rewind 3: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "work.txt")); err == nil {
		t.Fatal("work.txt survived the rewind to before prompt 3")
	}
	if r := runPlyHome(t, dir, home, nil, "rewind", "--undo"); r.code != 0 {
		t.Fatalf("--undo: exit %d\n%s", r.code, r.stderr)
	}
	sameTree(t, "after the undo", treeOf(t, dir), withWork)
}

// ply rewind --finish completes a rewind SIGKILL cut short; its undo puts
// back the files as they were before it.
func TestFinishARewindCutShort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ply as a process and kills it")
	}
	dir, home, _, treeA, treeB := rewindFixture(t, func(string) []fp.Turn { return nil })
	cmd, _, _ := startPausedRewind(t, dir, home, "1", "--code")
	cmd.Process.Kill()
	cmd.Wait()
	r := runPlyHome(t, dir, home, nil, "rewind", "--finish")
	if r.code != 0 || !strings.Contains(r.stdout, "Finished the interrupted rewind") {
		t.Fatalf("--finish: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sameTree(t, "after --finish", treeOf(t, dir), treeA)
	if r := runPlyHome(t, dir, home, nil, "rewind", "--finish"); r.code != 42 {
		t.Fatalf("a second --finish: exit %d, want 42\n%s", r.code, r.stderr)
	}
	if r := runPlyHome(t, dir, home, nil, "rewind", "--undo"); r.code != 0 {
		t.Fatalf("--undo: exit %d\n%s", r.code, r.stderr)
	}
	sameTree(t, "after the undo", treeOf(t, dir), treeB)
}
